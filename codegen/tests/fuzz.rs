//! Deterministic mutation fuzzing of the whole load pipeline: thousands of
//! corrupted variants of a valid spec must each give diagnostics, never a panic,
//! and every diagnostic must point inside its file.

use toolgen::load::{LoadOptions, load};

const VALID: &str = include_str!("../../tool-specs/editormcp/scene.hierarchy.dump.json");

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "null",
    "true",
    "1e999",
    "-0",
    "\\u",
    "\\ud800",
    "0.5",
    "\"type\"",
    "\"$ref\"",
    "\"required\"",
    "\"default\"",
    "\"#/definitions/X\"",
    "\u{e9}",
    "\t",
    "\n",
];

#[test]
fn mutated_specs_never_panic() {
    let dir = std::env::temp_dir().join(format!("toolgen-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join("tool.json");
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let mut error_runs = 0;
    for _ in 0..1500 {
        let mut bytes = VALID.as_bytes().to_vec();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(bytes.len());
            match rng.below(3) {
                0 => {
                    let end = (at + 1 + rng.below(20)).min(bytes.len());
                    bytes.drain(at..end);
                }
                1 => {
                    let t = TOKENS[rng.below(TOKENS.len())];
                    bytes.splice(at..at, t.bytes());
                }
                _ => bytes[at] = (rng.next() & 0xff) as u8,
            }
        }
        std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{e}"));
        let loaded = load(std::slice::from_ref(&path), &LoadOptions::default());
        if loaded.diagnostics.has_errors() {
            error_runs += 1;
        }
        for d in loaded.diagnostics.iter() {
            if let Some(loc) = d.loc {
                let f = loaded.db.get(loc.file);
                assert!(
                    loc.span.start as usize <= f.text().len()
                        && loc.span.end as usize <= f.text().len()
                );
                assert!(loc.span.start <= loc.span.end);
            }
        }
    }
    assert!(
        error_runs > 500,
        "mutations should mostly break the spec: {error_runs}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
