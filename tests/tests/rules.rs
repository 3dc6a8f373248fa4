//! Every validation rule has a fixture directory under tests/fixtures/rules/
//! with a spec that breaks it; the diagnostics (severity, code, file, line and
//! column) must be exactly those in its `expected.txt`. The expected positions
//! were computed by tests/fixtures/make_rule_fixtures.py from the text itself.

use std::collections::BTreeSet;
use std::path::PathBuf;

use toolgen::diag::{HumanRenderer, rule};
use toolgen::load::{LoadOptions, load};
use toolgen_tests::{diagnostic_lines, fixtures};

fn fixture_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures().join("rules"))
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

fn options_for(dir: &std::path::Path) -> LoadOptions {
    let mut options = LoadOptions::default();
    // `options.cfg`: `key=value` lines (not JSON, which would be read as a spec).
    let text = std::fs::read_to_string(dir.join("options.cfg")).unwrap_or_default();
    for line in text.lines() {
        if let Some(n) = line
            .strip_prefix("maxFileSize=")
            .and_then(|v| v.trim().parse().ok())
        {
            options.max_file_size = n;
        }
    }
    options
}

#[test]
fn rule_fixtures_give_exactly_the_expected_diagnostics() {
    let dirs = fixture_dirs();
    assert!(dirs.len() >= 40, "fixtures missing: {}", dirs.len());
    let mut failures = Vec::new();
    for dir in &dirs {
        // The manifest must not apply to files outside the fixture: fixtures have
        // their own, or none (and the repository has none above tests/).
        let loaded = load(std::slice::from_ref(dir), &options_for(dir));
        let got = diagnostic_lines(&loaded, dir);
        let expected: Vec<String> = std::fs::read_to_string(dir.join("expected.txt"))
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_owned)
            .collect();
        if got != expected {
            let r = HumanRenderer {
                db: &loaded.db,
                color: false,
            };
            let rendered: String = loaded.diagnostics.iter().map(|d| r.render(d)).collect();
            failures.push(format!(
                "{}:\n  expected {expected:?}\n  got      {got:?}\n{rendered}",
                dir.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Rules that no EditorMCP spec file can break, with the reason; each is tested elsewhere.
const NOT_FROM_A_SPEC_FILE: &[(&str, &str)] = &[
    (
        "TG0001",
        "needs a path that cannot be read: tested in io_errors_are_reported_not_panics",
    ),
    (
        "TG0802",
        "concerns template files, not specs: tested by codegen's templates unit tests and the CLI's --templates test",
    ),
    (
        "TG0801",
        "no spec that passes validation makes typify fail: each construct found to (references into properties, `contains`, definitions typify names alike, inline types it names alike) is prepared for typify instead, with a hostile fixture that compiles and round-trips (tests/fixtures/rust-hostile); `cargo xtask fuzz-compile` looks for more. The diagnostic itself is tested at the typify boundary in codegen's emit::rust unit tests",
    ),
];

#[test]
fn every_rule_has_a_failing_fixture() {
    let covered: BTreeSet<String> = fixture_dirs()
        .iter()
        .filter_map(|d| d.file_name()?.to_str()?.get(..6).map(str::to_owned))
        .collect();
    let exempt: BTreeSet<&str> = NOT_FROM_A_SPEC_FILE.iter().map(|(c, _)| *c).collect();
    // Breaking-change rules judge two versions of the specs, not one: each
    // has its before/after pair under tests/fixtures/breaking (tests/breaking.rs).
    let missing: Vec<&str> = rule::ALL
        .iter()
        .filter(|r| !r.is_breaking())
        .map(|r| r.code)
        .filter(|c| !covered.contains(*c) && !exempt.contains(c))
        .collect();
    assert!(missing.is_empty(), "rules without a fixture: {missing:?}");
    for code in &covered {
        assert!(
            toolgen::diag::find_rule(code).is_some(),
            "fixture for unknown rule {code}"
        );
    }
}

#[test]
fn io_errors_are_reported_not_panics() {
    let missing = fixtures().join("does-not-exist");
    let loaded = load(std::slice::from_ref(&missing), &LoadOptions::default());
    let lines = diagnostic_lines(&loaded, &fixtures());
    assert_eq!(lines, vec!["error TG0001 does-not-exist".to_owned()]);
}

/// The rustc-style rendering, compared with golden files.
#[test]
fn human_rendering_matches_golden_files() {
    let mut failures = Vec::new();
    for name in [
        "TG0005-syntax-error",
        "TG0006-duplicate-key",
        "TG0303-required-with-default",
        "TG0304-default-float-for-integer",
    ] {
        let dir = fixtures().join("rules").join(name);
        let loaded = load(std::slice::from_ref(&dir), &options_for(&dir));
        let r = HumanRenderer {
            db: &loaded.db,
            color: false,
        };
        let base = dir.to_string_lossy().replace('\\', "/");
        let text: String = loaded
            .diagnostics
            .iter()
            .map(|d| {
                r.render(d)
                    .replace(&base, "$DIR")
                    .replace("tests/fixtures/rules/", "")
                    .replace(&format!("{name}/"), "$DIR/")
            })
            .collect();
        let golden = fixtures().join("render").join(format!("{name}.txt"));
        if std::env::var_os("TOOLGEN_BLESS").is_some() {
            let _ = std::fs::create_dir_all(golden.parent().unwrap_or(&dir));
            let _ = std::fs::write(&golden, &text);
            continue;
        }
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        if expected != text {
            failures.push(format!(
                "{}:\n--- expected\n{expected}\n--- got\n{text}",
                golden.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n(re-bless with TOOLGEN_BLESS=1 after checking the output)",
        failures.join("\n")
    );
}
