//! The synthetic tool sets used by the benchmarks are valid and varied, so that
//! the benchmarks measure the full pipeline, not an early error exit.

use toolgen::load::{LoadOptions, load};
use toolgen_tests::synth;

#[test]
fn synthetic_specs_validate_clean_and_cover_every_shape() {
    let dir = std::env::temp_dir().join(format!("toolgen-synth-{}", std::process::id()));
    synth::write(&dir, 60).unwrap_or_else(|e| panic!("{e}"));
    let loaded = load(std::slice::from_ref(&dir), &LoadOptions::default());
    let problems: Vec<String> = loaded
        .diagnostics
        .iter()
        .map(|d| d.message.clone())
        .collect();
    assert!(problems.is_empty(), "{problems:?}");
    let set = &loaded.project.tool_sets[0];
    assert_eq!(set.tools.len(), 60);
    let text = serde_json::to_string(&set.tools.iter().map(|t| &t.input.value).collect::<Vec<_>>())
        .unwrap_or_default();
    for shape in ["\"enum\"", "\"default\"", "\"items\"", "\"minimum\""] {
        assert!(text.contains(shape), "inputs never use {shape}");
    }
    let outputs = serde_json::to_string(
        &set.tools
            .iter()
            .map(|t| &t.output.value)
            .collect::<Vec<_>>(),
    )
    .unwrap_or_default();
    for shape in ["\"$defs\"", "\"additionalProperties\"", "\"null\""] {
        assert!(outputs.contains(shape), "outputs never use {shape}");
    }
    // Deterministic: writing the same N again gives the same bytes, file by file.
    let again = std::env::temp_dir().join(format!("toolgen-synth-again-{}", std::process::id()));
    synth::write(&again, 60).unwrap_or_else(|e| panic!("{e}"));
    let files = toolgen_tests::files_below(&dir, "json");
    assert_eq!(files.len(), 60);
    for f in &files {
        let name = f.file_name().unwrap_or_default();
        assert_eq!(
            std::fs::read(f).ok(),
            std::fs::read(again.join(name)).ok(),
            "{} differs between two runs",
            name.to_string_lossy()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&again);
}
