//! [`Generator::compile`]: generation from a `build.rs`, the way Cargo expects
//! a build script to behave.

use crate::diag::{HumanRenderer, Severity};
use crate::emit::{self, RustLayout};
use crate::ir::OutputKind;
use crate::load::Loaded;
use crate::output::{self};
use std::io::Write as _;
use std::path::PathBuf;

use super::{BuildError, GenerateError, Generator, Timings};

impl Generator {
    /// Generates from a `build.rs`, the way Cargo expects a build script to:
    ///
    /// - into `OUT_DIR` (unless [`Generator::out_dir`] says otherwise), with
    ///   the Rust as one file, `tools.rs`, which the package includes with
    ///   `toolgen_runtime::include_tools!()`; only the outputs asked for
    ///   (the Rust alone when none was);
    /// - `cargo::rerun-if-changed` for every input and every file read
    ///   (specs, manifests, `$ref`'d schema documents, template directories);
    /// - warnings as `cargo::warning=` lines; errors as located, rustc-style
    ///   diagnostics on stderr and `cargo::error=` lines, and an `Err` whose
    ///   message says so (no panic, no backtrace);
    /// - the package's `toolgen-runtime` (a normal dependency: its version
    ///   reaches the build script as `DEP_TOOLGEN_RUNTIME_VERSION`) must be
    ///   one the generated code can use, or nothing is generated and the
    ///   error names both versions.
    pub fn compile(&self) -> Result<(), BuildError> {
        let stdout = std::io::stdout();
        let mut cargo = stdout.lock();
        let mut g = self.clone();
        g.emit.rust_layout = RustLayout::Module;
        if g.emit.outputs.is_empty() {
            g.emit.outputs.push(OutputKind::Rust);
        }
        if g.emit.regenerate == emit::EmitOptions::default().regenerate {
            g.emit.regenerate = "cargo build (this package's build.rs)".to_owned();
        }
        let out = match g
            .out_dir
            .clone()
            .or_else(|| std::env::var_os("OUT_DIR").map(PathBuf::from))
        {
            Some(dir) => dir,
            None => {
                return Err(BuildError::Setup(
                    "OUT_DIR is not set: `compile` is for build scripts, which Cargo runs with it; elsewhere, use `out_dir(..).generate()`".to_owned(),
                ));
            }
        };
        for input in &g.inputs {
            let _ = writeln!(cargo, "cargo::rerun-if-changed={}", input.display());
        }
        if let Some(m) = &g.options.manifest {
            let _ = writeln!(cargo, "cargo::rerun-if-changed={}", m.display());
        }
        if g.emit.outputs.contains(&OutputKind::Rust) {
            runtime_matches(std::env::var("DEP_TOOLGEN_RUNTIME_VERSION").ok().as_deref())
                .map_err(BuildError::Runtime)?;
        }
        let loaded = g.load();
        for (_, file) in loaded.db.files() {
            let _ = writeln!(cargo, "cargo::rerun-if-changed={}", file.path.display());
        }
        for set in &loaded.project.tool_sets {
            if let Some(t) = &set.templates {
                let _ = writeln!(cargo, "cargo::rerun-if-changed={}", t.value.display());
            }
        }
        if let Some(t) = &g.emit.templates {
            let _ = writeln!(cargo, "cargo::rerun-if-changed={}", t.display());
        }
        let loaded = match g.render_valid(loaded, &mut Timings::default(), None, None) {
            Ok((loaded, files)) => {
                report_for_cargo(&loaded, &mut cargo);
                output::write(&out, &files, g.prune).map_err(|e| {
                    BuildError::Setup(format!("cannot write {}: {e}", out.display()))
                })?;
                return Ok(());
            }
            Err(GenerateError::Invalid(loaded)) => loaded,
            Err(other) => return Err(BuildError::Setup(other.to_string())),
        };
        report_for_cargo(&loaded, &mut cargo);
        let render = HumanRenderer {
            db: &loaded.db,
            color: false,
        };
        let mut stderr = std::io::stderr().lock();
        for d in loaded.diagnostics.iter() {
            let _ = writeln!(stderr, "{}", render.render(d));
        }
        let warnings = loaded.diagnostics.count(Severity::Warning);
        let errors = loaded.diagnostics.count(Severity::Error);
        if errors == 0 {
            // Only `deny_warnings` fails a run without errors.
            let _ = writeln!(
                cargo,
                "cargo::error=toolgen: warnings are denied (deny_warnings); nothing was generated"
            );
        }
        Err(BuildError::Invalid { errors, warnings })
    }
}

/// Checks the version of the package's `toolgen-runtime` against this toolgen's.
pub(super) fn runtime_matches(found: Option<&str>) -> Result<(), String> {
    let ours = emit::runtime_crate::VERSION;
    match found {
        None => Err(format!(
            "the generated code needs `toolgen-runtime` as a dependency of this package (in [dependencies], not [build-dependencies]); add `toolgen-runtime = \"{ours}\"` (or a `path`/`git` source of version {ours})"
        )),
        Some(v) => match emit::runtime_crate::compatible(ours, v) {
            Some(true) => Ok(()),
            _ => Err(format!(
                "this package depends on toolgen-runtime {v}, but toolgen {ours} (the build-dependency) generates code for toolgen-runtime ^{ours}; use the same version of both: `toolgen = \"{ours}\"` and `toolgen-runtime = \"{ours}\"`, or toolgen {v} for this runtime"
            )),
        },
    }
}

/// Every diagnostic as one `cargo::warning=` or `cargo::error=` line, with its place.
fn report_for_cargo(loaded: &Loaded, cargo: &mut impl std::io::Write) {
    for d in loaded.diagnostics.iter() {
        let place = d
            .loc
            .map(|l| format!(" ({})", loaded.db.describe(l)))
            .or_else(|| d.path.as_ref().map(|p| format!(" ({p})")))
            .unwrap_or_default();
        let message = d.message.replace(['\n', '\r'], " ");
        let line = format!("{}: {message}{place}", d.rule.code);
        let directive = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => continue,
        };
        let _ = writeln!(cargo, "cargo::{directive}={line}");
    }
}
