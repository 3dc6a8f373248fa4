//! The checked-in `generated/` tree must be exactly what the specs generate,
//! and generation must be deterministic.

use toolgen::Generator;
use toolgen_tests::{editormcp_spec_ids, root};

#[test]
fn generated_tree_is_up_to_date() {
    let g = toolgen_tests::tree_generator(&root(), toolgen_tests::TREES[0]);
    match g.check() {
        Ok((_, report)) => assert!(
            report.is_clean(),
            "generated/ is out of date; run `cargo xtask gen`: {report:?}"
        ),
        Err(e) => panic!("the repository's specs do not generate: {e}"),
    }
}

#[test]
fn the_editormcp_tool_set_is_clean_and_complete() {
    let loaded = Generator::new()
        .input(root().join("tool-specs/editormcp"))
        .load();
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let sets = &loaded.project.tool_sets;
    assert_eq!(sets.len(), 1);
    let ids: Vec<&str> = sets[0].tools.iter().map(|t| t.id.value.as_str()).collect();
    // editormcp_spec_ids checks that the seed's 18 core tools are all there.
    assert_eq!(
        ids,
        editormcp_spec_ids(),
        "the tool set holds every spec, by id"
    );
    for tool in &sets[0].tools {
        assert!(
            !tool.examples.is_empty(),
            "{} has no example",
            tool.id.value
        );
    }
    let timeouts: Vec<(String, Option<f64>)> = sets[0]
        .tools
        .iter()
        .filter(|t| t.timeout_seconds.is_some())
        .map(|t| (t.id.value.clone(), sets[0].timeout_of(t)))
        .collect();
    assert_eq!(
        timeouts,
        [
            ("project.assets.summary".to_owned(), Some(10.0)),
            ("project.references.missing".to_owned(), Some(15.0))
        ]
    );
}

#[test]
fn output_does_not_depend_on_input_order() {
    let dir = root().join("tool-specs/editormcp");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    let forward = Generator::new().inputs(files.iter().cloned()).load();
    files.reverse();
    let backward = Generator::new().inputs(files.iter().cloned()).load();
    let by_dir = Generator::new().input(&dir).load();
    let a = Generator::render(&forward.project);
    let b = Generator::render(&backward.project);
    let c = Generator::render(&by_dir.project);
    assert!(!a.is_empty());
    assert_eq!(a, b);
    assert_eq!(a, c);
}

/// The runtime toolgen bundles beside generated crates is this workspace's
/// `runtime/`: every file, byte for byte, and its dependencies as its
/// Cargo.toml declares them (read through `cargo metadata`).
#[test]
fn the_bundled_runtime_is_the_workspace_runtime() {
    use toolgen::testing::{RUNTIME_DEPENDENCIES as DEPENDENCIES, RUNTIME_FILES as FILES};
    let runtime = root().join("runtime");
    let mut on_disk: Vec<String> = toolgen_tests::files_below(&runtime.join("src"), "rs")
        .iter()
        .filter_map(|p| p.strip_prefix(&runtime).ok())
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .collect();
    on_disk.push("build.rs".to_owned());
    on_disk.sort();
    let mut bundled: Vec<String> = FILES.iter().map(|(p, _)| (*p).to_owned()).collect();
    bundled.sort();
    assert_eq!(
        bundled, on_disk,
        "codegen/src/emit/runtime_crate.rs must list every file of runtime/src"
    );
    for (path, text) in FILES {
        let disk = std::fs::read_to_string(runtime.join(path)).unwrap_or_default();
        assert!(disk == *text, "{path} differs from the bundled copy");
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("cargo metadata: {e}"));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    let package = meta["packages"]
        .as_array()
        .and_then(|p| p.iter().find(|p| p["name"] == "toolgen-runtime"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(package["links"], "toolgen_runtime");
    let mut declared: Vec<(String, String)> = package["dependencies"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["kind"].is_null())
        .map(|d| {
            let version = d["req"].as_str().unwrap_or("").trim_start_matches('^');
            let features: Vec<String> = d["features"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|f| f.as_str().map(|f| format!("\"{f}\"")))
                .collect();
            let mut options = Vec::new();
            if d["uses_default_features"] == false {
                options.push("default-features = false".to_owned());
            }
            if !features.is_empty() {
                options.push(format!("features = [{}]", features.join(", ")));
            }
            if d["optional"] == true {
                options.push("optional = true".to_owned());
            }
            let spec = if options.is_empty() {
                format!("\"{version}\"")
            } else {
                format!("{{ version = \"{version}\", {} }}", options.join(", "))
            };
            (d["name"].as_str().unwrap_or("").to_owned(), spec)
        })
        .collect();
    declared.sort();
    let bundled: Vec<(String, String)> = DEPENDENCIES
        .iter()
        .map(|(n, s)| ((*n).to_owned(), (*s).to_owned()))
        .collect();
    assert_eq!(bundled, declared, "the bundled runtime's [dependencies]");
    let mut features: Vec<(String, Vec<String>)> = package["features"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, deps)| {
            let deps = deps
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|d| d.as_str().map(str::to_owned))
                .collect();
            (name.clone(), deps)
        })
        .collect();
    features.sort();
    let bundled: Vec<(String, Vec<String>)> = toolgen::testing::RUNTIME_FEATURES
        .iter()
        .map(|(n, d)| ((*n).to_owned(), d.iter().map(|s| (*s).to_owned()).collect()))
        .collect();
    assert_eq!(bundled, features, "the bundled runtime's [features]");
}

/// The C# bridge package toolgen bundles is `runtime/csharp/`, file for file.
#[test]
fn the_bundled_csharp_bridge_is_the_workspace_package() {
    use toolgen::testing::CSHARP_BRIDGE_FILES as FILES;
    let dir = root().join("runtime/csharp");
    let mut on_disk: Vec<String> = ["cs", "asmdef", "json", "md"]
        .iter()
        .flat_map(|ext| toolgen_tests::files_below(&dir, ext))
        .filter_map(|p| {
            p.strip_prefix(&dir)
                .ok()
                .map(|p| p.to_string_lossy().replace('\\', "/"))
        })
        .collect();
    on_disk.sort();
    let mut bundled: Vec<String> = FILES.iter().map(|(p, _)| (*p).to_owned()).collect();
    bundled.sort();
    assert_eq!(
        bundled, on_disk,
        "codegen/src/emit/csharp_bridge.rs must list every file of runtime/csharp"
    );
    for (path, text) in FILES {
        assert!(
            std::fs::read_to_string(dir.join(path)).unwrap_or_default() == *text,
            "{path} differs from the bundled copy"
        );
    }
}
