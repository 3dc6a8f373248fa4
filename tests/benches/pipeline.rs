//! In-process benchmarks of the generator's stages (divan):
//! `cargo bench -p toolgen-tests`.
//!
//! The end-to-end numbers with peak memory (BENCHMARKS.md) come from
//! `cargo xtask bench`, which runs the release binary on 1,000 and 10,000 tools.

use std::path::PathBuf;

use divan::Bencher;
use toolgen::load::{LoadOptions, load};
use toolgen::source::FileId;
use toolgen::{Generator, syntax};
use toolgen_tests::synth;

fn main() {
    divan::main();
}

fn tool_set(n: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolgen-divan-{n}-{}", std::process::id()));
    synth::write(&dir, n).unwrap_or_else(|e| panic!("writing synthetic specs: {e}"));
    dir
}

/// Parsing one spec file into the spanned tree.
#[divan::bench]
fn parse_json(bencher: Bencher) {
    let text = serde_json::to_string_pretty(&synth::tool(5)).unwrap_or_default();
    bencher
        .counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| syntax::json::parse(FileId(0), divan::black_box(&text)));
}

/// Reading, translating and validating N tools (every rule, every example).
#[divan::bench(args = [10, 100, 1000])]
fn load_and_validate(bencher: Bencher, n: usize) {
    let dir = tool_set(n);
    bencher
        .counter(divan::counter::ItemsCount::new(n))
        .bench(|| load(std::slice::from_ref(&dir), &LoadOptions::default()));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Running every emitter over N validated tools (in memory, no disk).
#[divan::bench(args = [10, 100, 1000])]
fn render(bencher: Bencher, n: usize) {
    let dir = tool_set(n);
    let loaded = load(std::slice::from_ref(&dir), &LoadOptions::default());
    assert!(!loaded.diagnostics.has_errors());
    bencher
        .counter(divan::counter::ItemsCount::new(n))
        .bench(|| Generator::render(divan::black_box(&loaded.project)));
    let _ = std::fs::remove_dir_all(&dir);
}
