//! `toolgen breaking`: a fixture pair per rule (`tests/fixtures/breaking/<rule>/`,
//! `before/` and `after/`), each with the exact findings it must give
//! (`expected.txt`: rule code, severity, where in the new spec, where in the
//! old). The git history test is in `codegen/tests/cli.rs`.

use std::path::{Path, PathBuf};

use toolgen::Against;
use toolgen::Generator;
use toolgen::diag::Severity;
use toolgen_tests::fixtures;

/// The findings of comparing `before/` with `after/`, one line each.
fn findings(case: &Path) -> Vec<String> {
    let found = Generator::new()
        .input(case.join("after"))
        .breaking(&Against::Dir(case.join("before")), false)
        .unwrap_or_else(|e| panic!("{}: {e}", case.display()));
    let name = case
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let shown = |loc| {
        let text = found.db.describe(loc).replace('\\', "/");
        text.split(&format!("breaking/{name}/"))
            .last()
            .unwrap_or(&text)
            .to_owned()
    };
    found
        .diagnostics
        .iter()
        .map(|d| {
            let severity = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Note => "note",
            };
            let at = d.loc.map_or("-".to_owned(), shown);
            let was = d.secondary.first().map_or("-".to_owned(), |l| shown(l.loc));
            format!("{} {severity} {at} (was {was})", d.rule.code)
        })
        .collect()
}

fn cases() -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(fixtures().join("breaking"))
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    cases.sort();
    cases
}

#[test]
fn every_rule_has_a_fixture_with_its_exact_findings() {
    let mut failures = Vec::new();
    for case in cases() {
        let expected = std::fs::read_to_string(case.join("expected.txt")).unwrap_or_default();
        let expected: Vec<&str> = expected.lines().collect();
        let got = findings(&case);
        if std::env::var_os("TOOLGEN_BLESS").is_some() {
            let text: String = got.iter().map(|l| format!("{l}\n")).collect();
            std::fs::write(case.join("expected.txt"), text).unwrap_or_else(|e| panic!("{e}"));
            continue;
        }
        if got != expected {
            failures.push(format!(
                "{}:\n  expected {expected:#?}\n  got {got:#?}",
                case.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every breaking rule has its pair, named after it.
    let names: Vec<String> = cases()
        .iter()
        .filter_map(|c| Some(c.file_name()?.to_string_lossy().into_owned()))
        .collect();
    for r in toolgen::diag::rule::ALL.iter().filter(|r| r.is_breaking()) {
        assert!(
            names.contains(&r.name.to_owned()),
            "no fixture for {} ({})",
            r.code,
            r.name
        );
        let got = findings(&fixtures().join("breaking").join(r.name));
        assert!(
            got.iter().any(|l| l.starts_with(r.code)),
            "{}'s fixture does not give {}: {got:?}",
            r.name,
            r.code
        );
    }
}

#[test]
fn compatible_changes_break_nothing() {
    let got = findings(&fixtures().join("breaking/compatible"));
    assert!(
        got.iter().all(|l| l.contains(" note ")),
        "a new optional input, a new output field and a new description are compatible: {got:?}"
    );
    // Nor do they rename anything in the generated Rust.
    let case = fixtures().join("breaking/compatible");
    let found = Generator::new()
        .input(case.join("after"))
        .breaking(&Against::Dir(case.join("before")), true)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        found
            .diagnostics
            .iter()
            .all(|d| d.severity == Severity::Note),
        "{:?}",
        found
            .diagnostics
            .iter()
            .map(|d| &d.message)
            .collect::<Vec<_>>()
    );
}

/// A manifest's `breaking` is checked like the rest of it: an unknown
/// category or rule is a located error.
#[test]
fn a_bad_breaking_policy_is_a_located_error() {
    let dir = toolgen_tests::fresh_dir("breaking-policy");
    let case = fixtures().join("breaking/accepted-by-category/after");
    for f in ["keep.json", "scan.json", "toolset.yaml"] {
        std::fs::copy(case.join(f), dir.join(f)).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(
        dir.join("toolset.yaml"),
        "name: fixture\nformat: mcp\ntiers:\n  - id: core\nbreaking:\n  off: [inputz]\n  ignore:\n    - tool: scan\n      rules: [no-such-rule]\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let loaded = Generator::new().input(&dir).load();
    let lines = toolgen_tests::diagnostic_lines(&loaded, &dir);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("TG0105") && l.contains("toolset.yaml:6:")),
        "{lines:#?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("TG0105") && l.contains("toolset.yaml:9:")),
        "{lines:#?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The C# names `toolgen breaking` compares are keyed by wire position:
/// the tool's class, each class (unions too), property, enum and member.
#[test]
fn csharp_names_are_listed_by_wire_position() {
    let loaded = Generator::new()
        .input(fixtures().join("breaking/csharp-name-changed/after"))
        .load();
    let set = loaded
        .project
        .tool_sets
        .first()
        .unwrap_or_else(|| panic!("no tool set"));
    let names = toolgen::testing::csharp_public_names(set);
    let scan = names.get("scan").unwrap_or_else(|| panic!("{names:?}"));
    let get = |what: &str, at: &str| {
        scan.get(&(what.to_owned(), at.to_owned()))
            .map(String::as_str)
            .unwrap_or_else(|| panic!("no {what} at `{at}` in {scan:#?}"))
    };
    assert_eq!(get("class", ""), "Scan");
    assert_eq!(get("class", "input"), "Input");
    assert_eq!(get("property", "input/properties/path"), "Path");
    assert_eq!(get("enum", "input/properties/mode"), "Mode");
    assert_eq!(
        get("enum member", "input/properties/mode/enum/fast"),
        "Fast"
    );
    assert_eq!(get("class", "output/properties/items/items"), "Entry");
    assert_eq!(
        get("property", "output/properties/items/items/properties/size"),
        "Size"
    );
    assert_eq!(
        get("class", "output/properties/items/items/properties/size"),
        "Size"
    );
}
