//! The `toolgen` binary: exit codes, message formats, and hostile input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn toolgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolgen"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap_or_else(|e| panic!("cannot run toolgen: {e}"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("toolgen-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{e}"));
    d
}

fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

const VALID: &str = r#"{
  "id": "scene.sample",
  "name": "Sample Tool",
  "description": "Returns a sample.",
  "category": "scene",
  "safetyLevel": "read-only",
  "tier": "core",
  "inputs": {"path": {"type": "string", "required": true, "description": "A path."}},
  "outputs": {"count": {"type": "integer", "description": "A count."}},
  "examples": [{"input": {"path": "a"}, "output": {"count": 1}}]
}"#;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn validate_exit_codes() {
    let ok = toolgen(&[
        "validate",
        &repo().join("tool-specs/editormcp").to_string_lossy(),
    ]);
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
    let specs = std::fs::read_dir(repo().join("tool-specs/editormcp"))
        .map(|d| {
            d.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
                .count()
        })
        .unwrap_or_default();
    let summary = format!("{specs} tools in 1 tool set");
    assert!(stderr(&ok).contains(&summary), "{}", stderr(&ok));

    let d = scratch("exit");
    let warn = d.join("warn.json");
    write(&warn, VALID.replace("\"Sample Tool\"", "\"sample tool\""));
    let o = toolgen(&["validate", &warn.to_string_lossy()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "warnings do not fail: {}",
        stderr(&o)
    );
    let o = toolgen(&["validate", "--deny-warnings", &warn.to_string_lossy()]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "--deny-warnings fails on warnings"
    );

    let bad = d.join("bad.json");
    write(&bad, VALID.replace("\"core\"", "\"gold\""));
    let o = toolgen(&["validate", &bad.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("error[TG0208]") && e.contains("bad.json:7:11"),
        "{e}"
    );

    let o = toolgen(&["validate", "--format", "nope", &bad.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(2), "usage errors exit 2");
}

#[test]
fn json_messages_are_one_object_per_line() {
    let d = scratch("json");
    let bad = d.join("bad.json");
    write(
        &bad,
        VALID
            .replace("\"scene\"", "\"scenes\"")
            .replace("\"Sample Tool\"", "\"sample tool\""),
    );
    let o = toolgen(&[
        "--message-format",
        "json",
        "validate",
        &bad.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let values: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect();
    assert_eq!(values.len(), 3, "{stdout}");
    assert_eq!(values[0]["code"], "TG0209");
    assert_eq!(values[0]["severity"], "warning");
    assert_eq!(values[0]["location"]["line"], 3);
    assert_eq!(values[1]["code"], "TG0204");
    assert_eq!(values[1]["rule"], "unknown-category");
    assert_eq!(values[1]["location"]["line"], 5);
    assert_eq!(values[1]["location"]["column"], 15);
    assert_eq!(values[1]["help"], "did you mean `scene`?");
    assert_eq!(values[2]["summary"]["errors"], 1);
}

#[test]
fn hostile_inputs_get_located_errors_not_panics() {
    let d = scratch("hostile");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("malformed.json", b"{\"id\": }".to_vec(), "TG0005"),
        ("empty.json", Vec::new(), "TG0004"),
        ("latin1.json", b"{\"id\": \"caf\xe9\"}".to_vec(), "TG0003"),
        ("array.json", b"[1, 2, 3]".to_vec(), "TG0008"),
        (
            "wrongtypes.json",
            VALID
                .replace("\"Sample Tool\"", "[1]")
                .replace("true", "\"yes\"")
                .into_bytes(),
            "TG0103",
        ),
        (
            "deep.json",
            format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes(),
            "TG0007",
        ),
        (
            "binary.json",
            (0u8..=255).cycle().take(4096).collect(),
            "TG0003",
        ),
        ("nul.json", b"{\"id\": \"a\0b\"}".to_vec(), "TG0005"),
    ];
    for (name, bytes, code) in &cases {
        let p = d.join(name);
        write(&p, bytes);
        let o = toolgen(&["validate", &p.to_string_lossy()]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {e}");
        assert!(
            e.contains(&format!("error[{code}]")),
            "{name}: expected {code}: {e}"
        );
        assert!(
            e.contains(&format!("{name}:")),
            "{name}: the file is named: {e}"
        );
        assert!(!e.contains("panicked"), "{name}: {e}");
    }
}

fn anchor_bomb() -> String {
    let mut bomb = String::from(
        "name: pkg-mcp_tool_x_y\nparameters: {type: object}\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
    );
    for i in 1..10 {
        let p = i - 1;
        bomb.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    bomb
}

#[test]
fn hostile_yaml_gets_located_errors_quickly() {
    let d = scratch("hostile-yaml");
    let cases: Vec<(&str, String, &str, &str)> = vec![
        (
            "syntax.yaml",
            "name: x\nparameters: [1, 2\n".to_owned(),
            "TG0005",
            // The end of the file, shown at the end of its last line.
            ":2:18",
        ),
        (
            "tabs.yaml",
            "name: x\nparameters:\n\ttype: object\n".to_owned(),
            "TG0005",
            ":3:",
        ),
        ("bomb.yaml", anchor_bomb(), "TG0007", ":"),
        (
            "list.yaml",
            "- name: x\n- parameters: {}\n".to_owned(),
            "TG0008",
            ":1:1",
        ),
        (
            "scalar.yaml",
            "just a string\n".to_owned(),
            "TG0008",
            ":1:1",
        ),
        (
            "comments.yaml",
            "# nothing here\n".to_owned(),
            "TG0004",
            ":1:1",
        ),
    ];
    for (name, text, code, place) in &cases {
        let p = d.join(name);
        write(&p, text);
        let started = std::time::Instant::now();
        let o = toolgen(&["validate", &p.to_string_lossy()]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {e}");
        assert!(
            e.contains(&format!("error[{code}]")),
            "{name}: expected {code}: {e}"
        );
        assert!(
            e.contains(&format!("{name}{place}")),
            "{name}: located at {place}: {e}"
        );
        assert!(!e.contains("panicked"), "{name}: {e}");
        // A guard against runaway expansion, not a performance assertion.
        assert!(
            started.elapsed().as_secs() < 30,
            "{name} took {:?}",
            started.elapsed()
        );
    }
    let e = stderr(&toolgen(&[
        "validate",
        &d.join("tabs.yaml").to_string_lossy(),
    ]));
    assert!(e.contains("tabs"), "the tab error says so: {e}");
}

#[test]
fn group_filters() {
    let rave = repo().join("tool-specs/rave");
    let rave = rave.to_string_lossy();
    let count = |args: &[&str]| {
        let mut all = vec!["--message-format", "json", "validate"];
        all.extend_from_slice(args);
        all.push(&rave);
        let o = toolgen(&all);
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        let summary: serde_json::Value = out
            .lines()
            .last()
            .and_then(|l| serde_json::from_str(l).ok())
            .unwrap_or_default();
        summary["summary"]["tools"].as_u64().unwrap_or(999)
    };
    assert_eq!(count(&[]), 6);
    assert_eq!(count(&["--groups", "pipeline"]), 2);
    assert_eq!(
        count(&["--groups", "pipeline", "-g", "subject"]),
        4,
        "groups combine with OR"
    );
    assert_eq!(
        count(&["--groups", "config_get"]),
        1,
        "a group is a regex prefix"
    );
    assert_eq!(count(&["--groups", "nothing"]), 0);
    let o = toolgen(&["validate", "--groups", "(", &rave]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("invalid group pattern"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn convert_to_rave() {
    let d = scratch("convert");
    let out = d.join("out");
    let o = toolgen(&[
        "convert",
        "--to",
        "rave",
        "--out",
        &out.to_string_lossy(),
        &repo().join("tool-specs/rave").to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let converted = out.join("ravedemo");
    let o = toolgen(&["validate", "--deny-warnings", &converted.to_string_lossy()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "converted files validate clean: {}",
        stderr(&o)
    );
}

#[test]
fn very_large_files_are_refused_before_reading() {
    let d = scratch("large");
    let big = d.join("big.json");
    let f = std::fs::File::create(&big).unwrap_or_else(|e| panic!("{e}"));
    let yaml = d.join("big.yaml");
    std::fs::File::create(&yaml)
        .and_then(|f| f.set_len(50 * 1024 * 1024))
        .unwrap_or_else(|e| panic!("{e}"));
    let o = toolgen(&["validate", &yaml.to_string_lossy()]);
    assert!(stderr(&o).contains("error[TG0002]"), "{}", stderr(&o));
    let _ = std::fs::remove_file(&yaml);
    f.set_len(50 * 1024 * 1024)
        .unwrap_or_else(|e| panic!("{e}"));
    let started = std::time::Instant::now();
    let o = toolgen(&["validate", &big.to_string_lossy()]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        e.contains("error[TG0002]") && e.contains("--max-file-size"),
        "{e}"
    );
    // Not a timing assertion on speed, only a guard that the file was not parsed:
    assert!(started.elapsed().as_secs() < 60);
    let _ = std::fs::remove_file(&big);
}

#[test]
fn gen_writes_nothing_when_specs_have_errors() {
    let d = scratch("nothing");
    let good = d.join("good.json");
    let bad = d.join("bad.json");
    write(&good, VALID);
    write(
        &bad,
        VALID
            .replace("scene.sample", "scene.other")
            .replace("\"core\"", "\"gold\""),
    );
    let out = d.join("out");
    let o = toolgen(&["gen", "--out", &out.to_string_lossy(), &d.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("nothing was written"));
    assert!(!out.exists(), "no output directory on error");

    // Fix the error: generation works, and a second run changes nothing.
    write(&bad, VALID.replace("scene.sample", "scene.other"));
    let o = toolgen(&[
        "gen",
        "--out",
        &out.to_string_lossy(),
        &good.to_string_lossy(),
        &bad.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(out.join("catalog/editormcp/tools.json").is_file());
    assert!(
        out.join("catalog/editormcp/schemas/scene.other.input.json")
            .is_file()
    );
    let o = toolgen(&[
        "gen",
        "--check",
        "--out",
        &out.to_string_lossy(),
        &good.to_string_lossy(),
        &bad.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    // Dropping a tool: --check names the extra file; gen removes it but keeps the user's own files.
    write(&out.join("README.txt"), "mine");
    let o = toolgen(&[
        "gen",
        "--check",
        "--out",
        &out.to_string_lossy(),
        &good.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("extra:") && e.contains("scene.other.input.json"),
        "{e}"
    );
    assert!(
        !e.contains("README.txt"),
        "user files are not toolgen's: {e}"
    );
    let o = toolgen(&[
        "gen",
        "--out",
        &out.to_string_lossy(),
        &good.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        !out.join("catalog/editormcp/schemas/scene.other.input.json")
            .exists()
    );
    assert!(out.join("README.txt").exists());
}

#[test]
fn rules_and_explain() {
    let o = toolgen(&["rules"]);
    assert_eq!(o.status.code(), Some(0));
    let listing = String::from_utf8_lossy(&o.stdout);
    assert!(listing.contains("TG0304") && listing.contains("default-type-mismatch"));
    let o = toolgen(&["explain", "default-type-mismatch"]);
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("TG0304"));
    assert_eq!(toolgen(&["explain", "TG9999"]).status.code(), Some(2));
}

#[test]
fn templates_can_be_overridden_and_broken_overrides_are_located() {
    let d = scratch("templates");
    let spec = d.join("sample.json");
    write(&spec, VALID);
    let tpl = d.join("tpl");
    std::fs::create_dir_all(tpl.join("csharp")).unwrap_or_else(|e| panic!("{e}"));
    // A working override: used for every tool file, other templates stay built-in.
    write(
        &tpl.join("csharp/tool.cs.jinja"),
        "// custom template for {{ tool.id_text }}\n",
    );
    let out = d.join("out");
    let o = toolgen(&[
        "gen",
        &spec.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
        "--templates",
        &tpl.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let tool =
        std::fs::read_to_string(out.join("csharp/editormcp/SceneSample.cs")).unwrap_or_default();
    assert_eq!(tool, "// custom template for scene.sample\n");
    assert!(out.join("csharp-bridge/Editor/Dispatcher.cs").is_file());
    // A broken override: TG0802 naming file and line, nothing written.
    write(&tpl.join("csharp/tool.cs.jinja"), "ok\n{% if %}\n");
    let out2 = d.join("out2");
    let o = toolgen(&[
        "gen",
        &spec.to_string_lossy(),
        "--out",
        &out2.to_string_lossy(),
        "--templates",
        &tpl.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("TG0802") && e.contains("tool.cs.jinja:2"), "{e}");
    assert!(!out2.exists(), "nothing written");
    // A template that renders an unknown variable: also TG0802, not a panic.
    write(
        &tpl.join("csharp/tool.cs.jinja"),
        "{{ tool.no_such_field }}\n",
    );
    let o = toolgen(&[
        "gen",
        &spec.to_string_lossy(),
        "--out",
        &out2.to_string_lossy(),
        "--templates",
        &tpl.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("TG0802"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_manifest_can_name_a_templates_directory() {
    let d = scratch("manifest-templates");
    write(&d.join("sample.json"), VALID);
    std::fs::create_dir_all(d.join("my-templates/docs")).unwrap_or_else(|e| panic!("{e}"));
    write(
        &d.join("my-templates/docs/tool.md.jinja"),
        "# {{ tool.name }} (house style)\n",
    );
    let manifest =
        "name: sample\nformat: editormcp\nnamespace: Sample.Tools\ntemplates: my-templates\n";
    write(&d.join("toolset.yaml"), manifest);
    let out = d.join("out");
    let o = toolgen(&["gen", &d.to_string_lossy(), "--out", &out.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page =
        std::fs::read_to_string(out.join("docs/src/sample/scene.sample.md")).unwrap_or_default();
    assert_eq!(page, "# Sample Tool (house style)\n");
    // A directory that is not there: TG0802 at the manifest's `templates` value.
    write(
        &d.join("toolset.yaml"),
        manifest.replace("my-templates", "nowhere"),
    );
    let o = toolgen(&[
        "gen",
        &d.to_string_lossy(),
        "--out",
        &d.join("out2").to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("TG0802") && e.contains("toolset.yaml:4:12"),
        "{e}"
    );
    assert!(!d.join("out2").exists());
    let _ = std::fs::remove_dir_all(&d);
}

/// A fenced block of `section`: the `n`-th (from 0) that opens with `` ```lang ``,
/// with the list item's indentation taken off.
fn fenced(section: &str, lang: &str, n: usize) -> String {
    let block = section
        .split(&format!("```{lang}\n"))
        .nth(n + 1)
        .and_then(|rest| rest.split("```").next())
        .unwrap_or_else(|| panic!("README: no ```{lang} block number {n} in the walkthrough"));
    block
        .lines()
        .map(|l| l.strip_prefix("   ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    for entry in std::fs::read_dir(from)
        .unwrap_or_else(|e| panic!("{}: {e}", from.display()))
        .flatten()
    {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
}

/// README.md's "Five minutes: add a tool", steps 1 to 3, on a copy of `tool-specs/`: its
/// spec validates and generates the files the README names, and its deliberate mistake
/// gives the error the README shows, character for character.
#[test]
fn the_readme_walkthrough_holds() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap_or_default();
    let section = readme
        .split("## Five minutes: add a tool")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .unwrap_or_else(|| panic!("README.md has no \"Five minutes: add a tool\" section"));
    let spec = fenced(section, "json", 0);
    let expected_error = fenced(section, "text", 0);

    let d = scratch("readme");
    copy_tree(&repo().join("tool-specs"), &d.join("tool-specs"));
    let file = d.join("tool-specs/editormcp/scene.objects.count.json");
    write(&file, &spec);
    let run = |args: &[&str]| -> Output {
        Command::new(env!("CARGO_BIN_EXE_toolgen"))
            .args(args)
            .current_dir(&d)
            .env("NO_COLOR", "1")
            .output()
            .unwrap_or_else(|e| panic!("cannot run toolgen: {e}"))
    };

    let o = run(&["validate", "tool-specs"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&["gen", "--out", "generated", "tool-specs"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for (named, files) in [
        (
            "generated/catalog/editormcp/schemas/scene.objects.count.{input,output}.json",
            &[
                "catalog/editormcp/schemas/scene.objects.count.input.json",
                "catalog/editormcp/schemas/scene.objects.count.output.json",
            ][..],
        ),
        (
            "generated/rust/src/editormcp/",
            &["rust/src/editormcp/scene_objects_count.rs"],
        ),
        (
            "generated/docs/src/editormcp/scene.objects.count.md",
            &["docs/src/editormcp/scene.objects.count.md"],
        ),
        (
            "generated/csharp/editormcp/SceneObjectsCount.cs",
            &["csharp/editormcp/SceneObjectsCount.cs"],
        ),
    ] {
        assert!(
            section.contains(named),
            "the walkthrough no longer names {named}"
        );
        for file in files {
            assert!(
                d.join("generated").join(file).is_file(),
                "{file} not generated"
            );
        }
    }
    let tools =
        std::fs::read_to_string(d.join("generated/rust/src/editormcp/mod.rs")).unwrap_or_default();
    assert!(
        tools.contains("fn scene_objects_count(") && tools.contains("trait EditormcpTools"),
        "the trait method the README shows"
    );

    write(
        &file,
        spec.replacen("\"tier\": \"core\"", "\"tier\": \"Pro\"", 1),
    );
    let o = run(&["validate", "tool-specs"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(expected_error.trim_end()),
        "the README's error:\n{expected_error}\ntoolgen's:\n{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// `toolgen init` and `toolgen new` write, in each format, specs that
/// validate with no warnings and that name their JSON Schema, which accepts them.
#[test]
fn init_and_new_scaffold_specs_that_validate_with_no_warnings() {
    let d = scratch("scaffold");
    for (format, ext) in [("mcp", "json"), ("editormcp", "json"), ("rave", "yaml")] {
        let set = d.join(format);
        let set_s = set.to_string_lossy().into_owned();
        let o = toolgen(&["init", &set_s, "--format", format]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let o = toolgen(&["new", "forecast", "--dir", &set_s]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let o = toolgen(&["validate", "--deny-warnings", &set_s]);
        assert_eq!(o.status.code(), Some(0), "{format}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("2 tools in 1 tool set (0 warnings)"),
            "{}",
            stderr(&o)
        );
        // Every scaffolded file names a schema that exists and accepts it.
        let specs: Vec<PathBuf> = std::fs::read_dir(&set)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == ext || x == "yaml"))
            .collect();
        assert_eq!(specs.len(), 3, "{specs:?}");
        for spec in specs {
            let text = std::fs::read_to_string(&spec).unwrap_or_default();
            let reference = text
                .lines()
                .find_map(|l| {
                    l.split_once("$schema=")
                        .map(|(_, r)| r.trim().to_owned())
                        .or_else(|| {
                            l.trim()
                                .strip_prefix("\"$schema\": \"")
                                .and_then(|r| r.split('"').next())
                                .map(str::to_owned)
                        })
                })
                .unwrap_or_else(|| panic!("{} names no schema", spec.display()));
            let schema = spec.parent().unwrap_or(&d).join(&reference);
            assert!(schema.is_file(), "{}: {}", spec.display(), schema.display());
        }
        // `new` refuses to overwrite, and an id that cannot be one is refused.
        let o = toolgen(&["new", "forecast", "--dir", &set_s]);
        assert_eq!(o.status.code(), Some(1));
        assert!(stderr(&o).contains("already exists"), "{}", stderr(&o));
        let o = toolgen(&["init", &set_s, "--format", format]);
        assert_eq!(
            o.status.code(),
            Some(1),
            "init refuses an existing tool set"
        );
    }
    // An EditorMCP id off the naming rules: nothing is left behind.
    let set = d.join("editormcp");
    let o = toolgen(&["new", "Bad Id", "--dir", &set.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("TG0201"), "{}", stderr(&o));
    assert!(!set.join("Bad Id.json").exists());
    // `new` without a tool set says how to make one.
    let lone = scratch("scaffold-lone");
    let o = toolgen(&["new", "x", "--dir", &lone.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("toolgen init"), "{}", stderr(&o));
}

#[test]
fn an_input_without_spec_files_is_an_error_that_says_where_it_looked() {
    let d = scratch("empty");
    write(&d.join("notes.md"), "nothing to read");
    let o = toolgen(&["validate", &d.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("error[TG0009]") && !e.contains("notes"), "{e}");
    assert!(e.contains("*.json") && e.contains("toolgen init"), "{e}");
    let o = toolgen(&[
        "gen",
        "--out",
        &d.join("out").to_string_lossy(),
        &d.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!d.join("out").exists());
}

/// A manifest at an R package's root names the spec folder that RAVE's own
/// generator owns, chooses outputs and silences a rule; `--allow`/`--deny`
/// work on the command line.
#[test]
fn manifests_outside_the_spec_folder_choose_outputs_and_rule_levels() {
    let d = scratch("rpkg");
    let tools = d.join("inst/mcp/tools");
    std::fs::create_dir_all(&tools).unwrap_or_else(|e| panic!("{e}"));
    let spec = "name: mypkg-mcp_tool_data_load\ndescription: Loads data.\nparameters:\n  type: object\n  properties:\n    rows:\n      type: integer\n      description: How many rows.\n      default: 10.0\ncategory: data\nimplementation_example: |\n  mypkg:::mcp_tool_data_load(rows = 5L)\n";
    write(&tools.join("mypkg-mcp_tool_data_load.yaml"), spec);
    // Another YAML file at the root that is not a spec: never read.
    write(&d.join("_pkgdown.yml"), "url: https://example.org\n");
    let d_s = d.to_string_lossy().into_owned();
    // Without a manifest: loose RAVE tools, named after their package, and a warning.
    let o = toolgen(&["validate", "--deny-warnings", &tools.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("TG0603"), "{}", stderr(&o));
    let o = toolgen(&[
        "validate",
        "--deny-warnings",
        "--allow",
        "float-for-integer",
        &tools.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = toolgen(&["validate", "--deny", "TG0603", &tools.to_string_lossy()]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "--deny makes the warning an error"
    );
    assert!(stderr(&o).contains("error[TG0603]"), "{}", stderr(&o));

    write(
        &d.join("toolset.yaml"),
        "name: mypkg\nformat: rave\nspecs: inst/mcp/tools\noutputs: [catalog, docs]\nlints:\n  TG0603: allow\n",
    );
    let o = toolgen(&["validate", "--deny-warnings", &d_s]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("1 tool in 1 tool set"),
        "{}",
        stderr(&o)
    );
    // The command line wins over the manifest.
    let o = toolgen(&["validate", "--warn", "TG0603", "--deny-warnings", &d_s]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // The spec folder alone finds the manifest above it, which names it.
    let o = toolgen(&["validate", "--deny-warnings", &tools.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // --manifest from anywhere, with no paths: its `specs`.
    let manifest = d.join("toolset.yaml");
    let o = toolgen(&[
        "validate",
        "--deny-warnings",
        "--manifest",
        &manifest.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    let out = d.join("out");
    let o = toolgen(&["gen", "--out", &out.to_string_lossy(), &d_s]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(out.join("catalog/mypkg/tools.json").is_file());
    assert!(out.join("docs/book.toml").is_file());
    assert!(
        !out.join("rust").exists() && !out.join("csharp").exists(),
        "only the outputs the manifest asks for"
    );
    // --emit narrows further; headers name the command that regenerates them.
    let only = d.join("only");
    let o = toolgen(&[
        "gen",
        "--emit",
        "docs",
        "--out",
        &only.to_string_lossy(),
        &d_s,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!only.join("catalog").exists());
    let book = std::fs::read_to_string(only.join("docs/book.toml")).unwrap_or_default();
    assert!(
        // Paths relative to the folder holding them all (here: the specs').
        book.contains("toolgen gen --out only --emit docs ."),
        "{book}"
    );

    // A bad manifest entry is located.
    write(
        &d.join("toolset.yaml"),
        "name: mypkg\nformat: rave\nspecs: inst/mcp/tools\noutputs: [catalog, unity]\nlints:\n  TG0101: allow\n",
    );
    let o = toolgen(&["validate", &d_s]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("unknown output `unity`") && e.contains("toolset.yaml:4:"),
        "{e}"
    );
    assert!(
        e.contains("TG0101 (missing-field) is an error") && e.contains("toolset.yaml:6:3"),
        "{e}"
    );
}

/// `execution: serial` in a manifest makes every tool of the set serial in the
/// generated table; a word that is not one is located.
#[test]
fn a_manifest_can_ask_for_serial_execution() {
    let d = scratch("serial");
    std::fs::create_dir_all(d.join("tools")).unwrap_or_else(|e| panic!("{e}"));
    let spec = "name: mypkg-mcp_tool_data_load\ndescription: Loads data.\nparameters:\n  type: object\n  properties:\n    rows:\n      type: integer\n      description: How many rows.\ncategory: data\n";
    write(&d.join("tools/mypkg-mcp_tool_data_load.yaml"), spec);
    write(
        &d.join("toolset.yaml"),
        "name: mypkg\nformat: rave\nspecs: tools\nexecution: serial\n",
    );
    let out = d.join("out");
    let o = toolgen(&[
        "gen",
        "--emit",
        "rust",
        "--out",
        &out.to_string_lossy(),
        &d.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let table = std::fs::read_to_string(out.join("rust/src/mypkg/mod.rs")).unwrap_or_default();
    assert!(table.contains("serial: true"), "{table}");
    write(
        &d.join("toolset.yaml"),
        "name: mypkg\nformat: rave\nspecs: tools\nexecution: sometimes\n",
    );
    let o = toolgen(&["validate", &d.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("sometimes") && e.contains("toolset.yaml:4:12") && e.contains("serial"),
        "{e}"
    );
}

/// By default a tool's input types are only read and its output types only
/// written (what a server needs); `rustSerde: both` gives every type both
/// ways, and a cached run sees the change. A word that is not one is located.
#[test]
fn generated_types_convert_one_way_unless_the_manifest_asks_for_both() {
    let d = scratch("rust-serde");
    let spec = r#"{"name": "t", "description": "A tool.",
      "inputSchema": {"type": "object", "properties": {
        "s": {"type": "string", "minLength": 2}, "n": {"type": "integer", "default": 5}}},
      "outputSchema": {"type": "object", "properties": {
        "s": {"type": "string", "minLength": 2}, "n": {"type": "integer", "default": 5}}}}"#;
    std::fs::create_dir_all(d.join("specs")).unwrap_or_else(|e| panic!("{e}"));
    write(&d.join("specs/t.json"), spec);
    let manifest = d.join("specs/toolset.yaml");
    write(&manifest, "name: sd\nformat: mcp\n");
    let out = d.join("out");
    let cache = d.join("cache");
    let generate = || {
        let o = toolgen(&[
            "gen",
            "--emit",
            "rust",
            "--cache-dir",
            &cache.to_string_lossy(),
            "--out",
            &out.to_string_lossy(),
            &d.join("specs").to_string_lossy(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let text = std::fs::read_to_string(out.join("rust/src/sd/t.rs")).unwrap_or_default();
        let output_at = text.find("pub mod output").unwrap_or(text.len());
        let (input, output) = text.split_at(output_at);
        (input.to_owned(), output.to_owned())
    };
    let (input, output) = generate();
    // The input: read only; the constrained string's newtype keeps its
    // hand-written `Deserialize` and loses `#[serde(transparent)]` with its
    // last serde derive.
    assert!(input.contains("::serde::Deserialize") && !input.contains("::serde::Serialize"));
    assert!(!input.contains("transparent"), "{input}");
    // The output: written only, typify's own `Deserialize` impl gone too.
    assert!(
        output.contains("::serde::Serialize") && !output.contains("Deserialize"),
        "{output}"
    );
    assert!(output.contains("#[serde(transparent)]"), "{output}");
    write(&manifest, "name: sd\nformat: mcp\nrustSerde: both\n");
    let (input, output) = generate();
    for side in [&input, &output] {
        assert!(
            side.contains("::serde::Serialize") && side.contains("Deserialize"),
            "{side}"
        );
        assert!(side.contains("#[serde(transparent)]"), "{side}");
    }
    write(&manifest, "name: sd\nformat: mcp\nrustSerde: client\n");
    let o = toolgen(&["validate", &d.join("specs").to_string_lossy()]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("unknown `rustSerde` value `client`") && e.contains("toolset.yaml:3:12"),
        "{e}"
    );
    assert!(e.contains("server") && e.contains("both"), "{e}");
}

#[test]
fn the_generated_crate_bundles_the_runtime_unless_told_otherwise() {
    let d = scratch("runtime");
    write(&d.join("tool.json"), VALID);
    let out = d.join("out");
    let o = toolgen(&["gen", "--out", &out.to_string_lossy(), &d.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let cargo = std::fs::read_to_string(out.join("rust/Cargo.toml")).unwrap_or_default();
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        cargo.contains(&format!(
            "toolgen-runtime = {{ version = \"{version}\", path = \"toolgen-runtime\" }}"
        )),
        "{cargo}"
    );
    for file in ["Cargo.toml", "build.rs", "src/lib.rs", "src/server/mod.rs"] {
        assert!(
            out.join("rust/toolgen-runtime").join(file).is_file(),
            "{file}"
        );
    }
    let lib = std::fs::read_to_string(out.join("rust/src/lib.rs")).unwrap_or_default();
    assert!(lib.contains("run `toolgen gen --out out .`"), "{lib}");
    // Another source: no bundled copy, and the old one is removed.
    let o = toolgen(&[
        "gen",
        "--out",
        &out.to_string_lossy(),
        "--runtime",
        "git=https://example.org/toolgen.git,tag=v1",
        &d.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let cargo = std::fs::read_to_string(out.join("rust/Cargo.toml")).unwrap_or_default();
    assert!(
        cargo.contains("git = \"https://example.org/toolgen.git\", tag = \"v1\""),
        "{cargo}"
    );
    assert!(!out.join("rust/toolgen-runtime").exists());
    let o = toolgen(&[
        "gen",
        "--out",
        &out.to_string_lossy(),
        "--runtime",
        "ftp=x",
        &d.to_string_lossy(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "a bad runtime source is a usage error"
    );
}

/// `n` standard MCP tools, each with a description saying `version`.
fn mcp_specs(dir: &Path, n: usize, version: &str) {
    std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{e}"));
    for i in 0..n {
        let spec = serde_json::json!({
            "name": format!("tool_{i:04}"),
            "description": format!("Tool {i}, {version}."),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": format!("A path ({version}).")},
                    "depth": {"type": "integer", "minimum": 0, "maximum": 8},
                    "mode": {"type": "string", "enum": ["fast", "full"]}
                },
                "required": ["path"]
            },
            "outputSchema": {
                "type": "object",
                "properties": {"items": {"type": "array", "items": {"type": "string"}}}
            }
        });
        write(
            &dir.join(format!("tool_{i:04}.json")),
            serde_json::to_string_pretty(&spec).unwrap_or_default(),
        );
    }
}

/// Every file below `dir`: relative path -> contents.
fn snapshot(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(rel) = p.strip_prefix(dir) {
                let bytes = std::fs::read(&p).unwrap_or_default();
                out.insert(rel.to_string_lossy().replace('\\', "/"), bytes);
            }
        }
    }
    out
}

#[test]
fn the_cache_skips_unchanged_runs_and_never_serves_stale_output() {
    let d = scratch("cache");
    let specs = d.join("specs");
    let out = d.join("out");
    let cache = d.join("cache");
    mcp_specs(&specs, 6, "v1");
    let gen_args = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = ["gen", "--out"].map(String::from).to_vec();
        a.push(out.to_string_lossy().into_owned());
        if !extra.contains(&"--no-cache") {
            a.push("--cache-dir".into());
            a.push(cache.to_string_lossy().into_owned());
        }
        a.extend(extra.iter().map(|s| s.to_string()));
        a.push(specs.to_string_lossy().into_owned());
        a
    };
    let run = |extra: &[&str]| {
        let args = gen_args(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = toolgen(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        stderr(&o)
    };
    assert!(run(&[]).contains("wrote"));
    let first = snapshot(&out);
    assert!(
        run(&[]).contains("nothing changed since the last run"),
        "a second run with nothing changed is skipped"
    );
    // A spec written again as it was: its stamp no longer vouches for it,
    // so it is read, found the same, and the run still skipped.
    let rewritten = toolgen::source::sorted_children(&specs)
        .unwrap_or_default()
        .into_iter()
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap_or_default();
    let same = std::fs::read(&rewritten).unwrap_or_else(|e| panic!("{e}"));
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(&rewritten, same.as_slice());
    assert!(
        run(&[]).contains("nothing changed since the last run"),
        "a spec written again unchanged"
    );
    // One spec changes: only its files are written, and they say so.
    mcp_specs(&specs, 1, "v2");
    let e = run(&[]);
    let written: usize = e
        .split("wrote ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX);
    assert!(
        written <= 8,
        "only the changed tool's files and the set's: {e}"
    );
    let second = snapshot(&out);
    assert!(String::from_utf8_lossy(&second["catalog/mcp/tools.json"]).contains("Tool 0, v2."));
    // The output edited by hand, or a file added beside it: not skipped.
    write(&out.join("rust/src/mcp/tool_0001.rs"), "// edited\n");
    assert!(run(&[]).contains("wrote 1 file"));
    assert_eq!(snapshot(&out), second);
    // The files a run found held are recorded as the last run recorded
    // them: the run after it is skipped.
    assert!(
        run(&[]).contains("nothing changed since the last run"),
        "recorded again as held"
    );
    // A spec changed and another tool's file edited by hand before the same
    // run: the one rendered, the other put back, and the record holds both.
    write(&out.join("rust/src/mcp/tool_0003.rs"), "// edited\n");
    mcp_specs(&specs, 1, "v3");
    run(&[]);
    let changed = snapshot(&out);
    let tools = String::from_utf8_lossy(&changed["catalog/mcp/tools.json"]).into_owned();
    assert!(tools.contains("Tool 0, v3."), "{tools}");
    let put_back = "rust/src/mcp/tool_0003.rs";
    assert_eq!(changed.get(put_back), second.get(put_back));
    assert!(run(&[]).contains("nothing changed since the last run"));
    mcp_specs(&specs, 1, "v2");
    run(&[]);
    assert_eq!(snapshot(&out), second);
    // Damaged cache entries are ignored: the output is what rendering gives.
    let mut damaged = 0;
    let mut stack = vec![cache.join("pieces")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                write(&e.path(), b"toolgen-cache 1 garbage\n".as_slice());
                damaged += 1;
            }
        }
    }
    assert!(damaged > 0, "the Rust emitter keeps its tool files");
    std::fs::remove_dir_all(&out).unwrap_or_else(|e| panic!("{e}"));
    run(&[]);
    assert_eq!(snapshot(&out), second);
    // --no-cache renders the same.
    std::fs::remove_dir_all(&out).unwrap_or_else(|e| panic!("{e}"));
    run(&["--no-cache"]);
    assert_eq!(snapshot(&out), second);
    assert_ne!(first, second);
    // A title changes: the pages listing every tool (kept by their
    // contexts, which show titles but not descriptions) are made again.
    let titled = specs.join("tool_0002.json");
    let text = std::fs::read_to_string(&titled).unwrap_or_else(|e| panic!("{e}"));
    write(
        &titled,
        text.replacen("{", "{\n  \"title\": \"Renamed Tool\",", 1),
    );
    run(&[]);
    let third = snapshot(&out);
    let summary = String::from_utf8_lossy(&third["docs/src/SUMMARY.md"]).into_owned();
    assert!(summary.contains("Renamed Tool"), "{summary}");
    std::fs::remove_dir_all(&out).unwrap_or_else(|e| panic!("{e}"));
    run(&["--no-cache"]);
    assert_eq!(snapshot(&out), third);
    let _ = std::fs::remove_dir_all(&d);
}

/// The C# registry shows no descriptions: after a description edit it is
/// taken from the cache with the new catalog hash put in, the same as a run
/// without the cache renders; an overridden registry template (which might
/// not show the hash as it is) is rendered on every run, and so is the
/// registry with an overridden entry template.
#[test]
fn a_kept_registry_carries_the_new_catalog_hash() {
    let d = scratch("registry-hash");
    let specs = d.join("specs");
    let templates = d.join("templates");
    mcp_specs(&specs, 3, "v1");
    let registry = "csharp/mcp/McpTools.cs";
    let generate = |out: &str, extra: &[&str]| {
        let out = d.join(out);
        let cache = d.join("cache");
        let mut args = vec!["gen", "--out", out.to_str().unwrap_or_default()];
        if !extra.contains(&"--no-cache") {
            args.extend(["--cache-dir", cache.to_str().unwrap_or_default()]);
        }
        args.extend(extra);
        args.push(specs.to_str().unwrap_or_default());
        let o = toolgen(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        snapshot(&out)
    };
    let hash_of = |files: &std::collections::BTreeMap<String, Vec<u8>>| {
        let index: serde_json::Value =
            serde_json::from_slice(&files["catalog/index.json"]).unwrap_or_default();
        index["toolSets"][0]["catalogHash"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    let first = generate("cached", &[]);
    mcp_specs(&specs, 1, "v2");
    let cached = generate("cached", &[]);
    let fresh = generate("fresh", &["--no-cache"]);
    let text = String::from_utf8_lossy(&cached[registry]).into_owned();
    assert_ne!(
        hash_of(&first),
        hash_of(&cached),
        "the edit changes the catalog hash"
    );
    assert!(
        text.contains(&format!("\"{}\"", hash_of(&cached))),
        "{text}"
    );
    assert!(!text.contains("@@"), "{text}");
    // The same as rendered without the cache, but for the header's command
    // (it names the output directory).
    let body = |files: &std::collections::BTreeMap<String, Vec<u8>>| {
        let text = String::from_utf8_lossy(&files[registry]).into_owned();
        let lines = text.lines().filter(|l| !l.starts_with("// run `"));
        lines.collect::<Vec<_>>().join("\n")
    };
    assert_eq!(body(&cached), body(&fresh));
    // An overridden registry template that shows the hash otherwise.
    std::fs::create_dir_all(templates.join("csharp")).unwrap_or_else(|e| panic!("{e}"));
    write(
        &templates.join("csharp/registry.cs.jinja"),
        "// {{ set.catalog_hash | upper }} {{ set.tools | length }}\n",
    );
    let t = templates.to_str().unwrap_or_default().to_owned();
    let overridden = |out: &str| {
        let o = toolgen(&[
            "gen",
            "--out",
            d.join(out).to_str().unwrap_or_default(),
            "--cache-dir",
            d.join("cache").to_str().unwrap_or_default(),
            "--templates",
            &t,
            specs.to_str().unwrap_or_default(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        snapshot(&d.join(out))
    };
    overridden("custom");
    mcp_specs(&specs, 1, "v3");
    let custom = overridden("custom");
    let expected = format!("// {} 3\n", hash_of(&custom).to_uppercase());
    assert_eq!(String::from_utf8_lossy(&custom[registry]), expected);
    // The built-in registry with an overridden entry template: each entry
    // as the override has it, with the cache as without.
    let entries = d.join("entries");
    std::fs::create_dir_all(entries.join("csharp")).unwrap_or_else(|e| panic!("{e}"));
    write(
        &entries.join("csharp/registry_entry.cs.jinja"),
        "            // entry {{ t.id }}\n",
    );
    let e = entries.to_str().unwrap_or_default().to_owned();
    let kept = generate("entries-cached", &["--templates", &e]);
    mcp_specs(&specs, 1, "v4");
    let kept_after = generate("entries-cached", &["--templates", &e]);
    let fresh_after = generate("entries-fresh", &["--templates", &e, "--no-cache"]);
    let text = String::from_utf8_lossy(&kept_after[registry]).into_owned();
    assert_eq!(text.matches("// entry ").count(), 3, "{text}");
    assert!(kept.contains_key(registry));
    assert_eq!(body(&kept_after), body(&fresh_after));
    let _ = std::fs::remove_dir_all(&d);
}

/// With a cache, validation skips tools an earlier run found clean, but a
/// tool with a problem is checked (and reported) on every run, and a tool
/// that changes is checked again.
#[test]
fn cached_validation_still_reports_every_problem() {
    let d = scratch("cache-validation");
    let specs = d.join("specs");
    let (out, cache) = (d.join("out"), d.join("cache"));
    mcp_specs(&specs, 4, "v1");
    let run = || {
        let args = [
            "gen",
            "--out",
            &out.to_string_lossy(),
            "--cache-dir",
            &cache.to_string_lossy(),
            &specs.to_string_lossy(),
        ]
        .map(String::from);
        toolgen(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    assert_eq!(run().status.code(), Some(0));
    // An enum value of the wrong type in one tool: reported on every run.
    let path = specs.join("tool_0002.json");
    let good = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let bad = good.replace("\"minimum\": 0,", "\"minimum\": 0, \"enum\": [\"deep\"],");
    assert_ne!(good, bad);
    write(&path, &bad);
    for _ in 0..2 {
        let o = run();
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(stderr(&o).contains("tool_0002.json"), "{}", stderr(&o));
    }
    // Another tool changes meanwhile: the broken one is still reported.
    mcp_specs(&specs, 1, "v2");
    let o = run();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("tool_0002.json"), "{}", stderr(&o));
    write(&path, &good);
    let o = run();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&d);
}

/// `toolgen gen` into an existing directory, killed at many points: the
/// directory holds the old files or the new ones (a committed journal is
/// finished by the next run), never a mix without a journal saying so.
#[test]
fn a_gen_killed_midway_leaves_the_old_output_or_the_new() {
    let d = scratch("kill");
    let specs = d.join("specs");
    let out = d.join("out");
    let out_arg = out.to_string_lossy().into_owned();
    let specs_arg = specs.to_string_lossy().into_owned();
    let gen_args = ["gen", "--no-cache", "--out", &out_arg, &specs_arg];
    mcp_specs(&specs, 120, "old");
    assert_eq!(toolgen(&gen_args).status.code(), Some(0));
    let old = snapshot(&out);
    mcp_specs(&specs, 120, "new");
    let started = std::time::Instant::now();
    assert_eq!(toolgen(&gen_args).status.code(), Some(0));
    let full = started.elapsed();
    let new = snapshot(&out);
    assert_ne!(old, new);
    let restore = || {
        let _ = std::fs::remove_dir_all(&out);
        for (rel, bytes) in &old {
            let p = out.join(rel);
            std::fs::create_dir_all(p.parent().unwrap_or(&out)).unwrap_or_else(|e| panic!("{e}"));
            write(&p, bytes);
        }
    };
    let mut seen = std::collections::BTreeMap::new();
    for step in 0..12u32 {
        restore();
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolgen"))
            .args(gen_args)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run toolgen: {e}"));
        // From early in the run to its very end, where the writes are.
        std::thread::sleep(full.mul_f64(0.4 + 0.06 * f64::from(step)));
        let _ = child.kill();
        let _ = child.wait();
        let journal = std::fs::read_to_string(out.join(".toolgen-journal")).ok();
        let state: std::collections::BTreeMap<String, Vec<u8>> = snapshot(&out)
            .into_iter()
            .filter(|(rel, _)| {
                // toolgen's own files of a run in progress: staged files and the journal.
                !rel.ends_with(".toolgen-new")
                    && rel != ".toolgen-journal"
                    && rel != ".toolgen-journal.new"
            })
            .collect();
        let outcome = match &journal {
            None if state == old => "old",
            None if state == new => "new",
            None => panic!("step {step}: a mix of old and new files without a journal"),
            Some(j) if !j.ends_with("commit\n") => {
                assert!(
                    state == old,
                    "step {step}: an uncommitted run changed files"
                );
                "staging (old)"
            }
            Some(_) => "committed (finished by the next run)",
        };
        *seen.entry(outcome).or_insert(0) += 1;
        // The next run recovers, and leaves nothing of the stopped one.
        assert_eq!(toolgen(&gen_args).status.code(), Some(0));
        assert_eq!(snapshot(&out), new, "step {step}: after the next run");
    }
    eprintln!("kill points: {seen:?}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn watch_regenerates_when_a_spec_changes() {
    let d = scratch("watch");
    let specs = d.join("specs");
    let out = d.join("out");
    mcp_specs(&specs, 3, "v1");
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolgen"))
        .args([
            "watch",
            "--interval-ms",
            "50",
            "--cache-dir",
            &d.join("cache").to_string_lossy(),
            "--out",
            &out.to_string_lossy(),
            &specs.to_string_lossy(),
        ])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run toolgen: {e}"));
    let catalog = out.join("catalog/mcp/tools.json");
    let wait_for = |text: &str| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while std::time::Instant::now() < deadline {
            if std::fs::read_to_string(&catalog).is_ok_and(|c| c.contains(text)) {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        false
    };
    let first = wait_for("Tool 2, v1.");
    mcp_specs(&specs, 3, "v2");
    let second = first && wait_for("Tool 2, v2.");
    // A new spec file is seen too.
    if second {
        write(
            &specs.join("extra.json"),
            r#"{"name": "extra_tool", "description": "Added while watching.", "inputSchema": {"type": "object"}}"#,
        );
    }
    let third = second && wait_for("Added while watching.");
    let _ = child.kill();
    let _ = child.wait();
    assert!(first, "the first generation");
    assert!(second, "a changed spec is generated again");
    assert!(third, "a new spec is generated");
    let _ = std::fs::remove_dir_all(&d);
}

fn git(dir: &Path, args: &[&str]) -> bool {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{e}"));
    for e in std::fs::read_dir(from).into_iter().flatten().flatten() {
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Two commits of a real repository, compared with `--against HEAD~1`
/// through the `toolgen` command line.
#[test]
fn against_the_previous_commit() {
    if !Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("SKIPPED: git is not installed");
        return;
    }
    let dir = scratch("breaking-git");
    assert!(git(&dir, &["init", "-q"]));
    let case = repo().join("tests/fixtures/breaking/input-enum-value-removed");
    copy_dir(&case.join("before"), &dir.join("specs"));
    assert!(git(&dir, &["add", "."]) && git(&dir, &["commit", "-qm", "before"]));
    copy_dir(&case.join("after"), &dir.join("specs"));
    assert!(git(&dir, &["commit", "-qam", "after"]));
    let run = |rev: &str| {
        Command::new(env!("CARGO_BIN_EXE_toolgen"))
            .args(["breaking", "--against", rev, "specs"])
            .current_dir(&dir)
            .output()
            .unwrap_or_else(|e| panic!("cannot run toolgen: {e}"))
    };
    let o = run("HEAD~1");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("error[TG0913]") && err.contains("HEAD~1:specs/scan.json"),
        "{err}"
    );
    let o = run("HEAD");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = run("no-such-rev");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.contains("is not a revision"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `deprecated` in each format: published in the catalog (`_meta.toolgen`),
/// shown on the docs page; a sunset that is not a date is a located error.
#[test]
fn a_tool_can_be_marked_deprecated_in_every_format() {
    let d = scratch("deprecated");
    let editor = d.join("editor");
    std::fs::create_dir_all(&editor).unwrap_or_else(|e| panic!("{e}"));
    write(
        &editor.join("scene.sample.json"),
        VALID.replace(
            "\"tier\": \"core\",",
            "\"tier\": \"core\",\n  \"deprecated\": {\"sunset\": \"2027-06-30\", \"message\": \"Use `scene.other`.\"},",
        ),
    );
    let rave = d.join("rave");
    std::fs::create_dir_all(&rave).unwrap_or_else(|e| panic!("{e}"));
    let rave_spec = "ravedemo-mcp_tool_config_get.yaml";
    let text = std::fs::read_to_string(repo().join("tool-specs/rave").join(rave_spec))
        .unwrap_or_else(|e| panic!("{e}"));
    write(&rave.join(rave_spec), format!("{text}deprecated: yes\n"));
    for (dir, set) in [(&editor, "editormcp"), (&rave, "ravedemo")] {
        let out = d.join(format!("out-{set}"));
        let o = toolgen(&[
            "gen",
            "--no-cache",
            "--out",
            &out.to_string_lossy(),
            &dir.to_string_lossy(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let catalog = std::fs::read_to_string(out.join(format!("catalog/{set}/tools.json")))
            .unwrap_or_default();
        assert!(catalog.contains("\"deprecated\""), "{set}: {catalog}");
        let mut pages = String::new();
        let mut stack = vec![out.join("docs")];
        while let Some(p) = stack.pop() {
            for e in std::fs::read_dir(&p).into_iter().flatten().flatten() {
                if e.path().is_dir() {
                    stack.push(e.path());
                } else if let Ok(t) = std::fs::read_to_string(e.path()) {
                    pages.push_str(&t);
                }
            }
        }
        assert!(
            pages.contains("**Deprecated:**"),
            "{set}: the docs page says so"
        );
    }
    write(
        &editor.join("scene.sample.json"),
        VALID.replace(
            "\"tier\": \"core\",",
            "\"tier\": \"core\",\n  \"deprecated\": {\"sunset\": \"next year\"},",
        ),
    );
    let o = toolgen(&["validate", &editor.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("`next year` is not a date") && e.contains("scene.sample.json:"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// The output does not depend on where `toolgen gen` ran from: run in the
/// project with relative paths, and from elsewhere with absolute ones, the
/// same specs give the same bytes, and no header names a directory of this
/// machine.
#[test]
fn output_is_the_same_whichever_directory_it_was_generated_from() {
    let project = scratch("cwd");
    mcp_specs(&project.join("tools"), 2, "v1");
    let elsewhere = scratch("cwd-elsewhere");
    let run = |cwd: &Path, out: &str, tools: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_toolgen"))
            .args(["gen", "--no-cache", "--out", out, tools])
            .current_dir(cwd)
            .env("NO_COLOR", "1")
            .output()
            .unwrap_or_else(|e| panic!("cannot run toolgen: {e}"));
        assert!(o.status.success(), "{}", stderr(&o));
    };
    run(&project, "gen-a", "tools");
    let abs_out = project.join("gen-b");
    let abs_tools = project.join("tools");
    run(
        &elsewhere,
        &abs_out.to_string_lossy(),
        &abs_tools.to_string_lossy(),
    );
    let a = snapshot(&project.join("gen-a"));
    let mut b = snapshot(&abs_out);
    // The two runs wrote to differently named folders: the command names its own.
    for bytes in b.values_mut() {
        let text = String::from_utf8_lossy(bytes).replace("--out gen-b", "--out gen-a");
        *bytes = text.into_bytes();
    }
    let a_text = |k: &str| String::from_utf8_lossy(&a[k]).into_owned();
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (path, bytes) in &a {
        assert!(bytes == &b[path], "{path} differs:\n{}", a_text(path));
        let text = String::from_utf8_lossy(bytes);
        let home = project.to_string_lossy();
        assert!(!text.contains(home.as_ref()), "{path} names {home}");
    }
    assert!(
        a_text("rust/src/lib.rs").contains("toolgen gen --out gen-a tools"),
        "{}",
        a_text("rust/src/lib.rs")
    );
    let _ = std::fs::remove_dir_all(&project);
    let _ = std::fs::remove_dir_all(&elsewhere);
}
