//! Publishes this crate's version to the build scripts of the packages that
//! depend on it (`links = "toolgen_runtime"` in Cargo.toml): toolgen's
//! `Generator::compile`, run from such a build script, reads it as
//! `DEP_TOOLGEN_RUNTIME_VERSION` and refuses to generate code for a runtime it
//! does not match, naming both versions, before anything is compiled.

fn main() {
    println!(
        "cargo::metadata=version={}",
        std::env::var("CARGO_PKG_VERSION").unwrap_or_default()
    );
    println!("cargo::rerun-if-changed=build.rs");
}
