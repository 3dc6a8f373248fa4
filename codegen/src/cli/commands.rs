//! The commands: each reads its arguments, runs the library, and reports.

use std::process::ExitCode;
use std::time::Instant;

use super::args::{GenArgs, InitFormat, InitServer, InputArgs, MessageFormat};
use super::report::{Reporter, generate_error, plural, shown};
use crate::diag::{self, Severity};
use crate::emit::csharp_bridge::CsharpBridge;
use crate::generator::{GenerateError, Generator};
use crate::ir::{Format, RuntimeSource};
use crate::output::Prune;

pub(super) fn generator(input: &InputArgs, reporter: &Reporter) -> Generator {
    let mut g = Generator::new()
        .inputs(input.paths.iter().cloned())
        .format(input.format)
        .deny_warnings(input.deny_warnings)
        .max_file_size(input.max_file_size)
        .groups(input.groups.clone())
        .clients(input.clients.clone())
        .progress(reporter.progress());
    if let Some(m) = &input.manifest {
        g = g.manifest(m);
    }
    input.lints.apply(g)
}

/// The `toolgen gen` command line that regenerates `out`, for the headers of
/// generated files: the arguments that change what is generated. Paths are
/// written relative to the deepest directory holding them all (the project's),
/// so that the headers are the same bytes whichever directory the command was
/// run from, and never name a directory of the machine it ran on.
pub(super) fn regenerate_command(
    input: &InputArgs,
    out: &std::path::Path,
    templates: Option<&std::path::Path>,
    extra: &[String],
) -> String {
    use std::path::Path;
    let mut paths: Vec<(&str, &Path)> = vec![("--out", out)];
    if let Some(m) = &input.manifest {
        paths.push(("--manifest", m));
    }
    if let Some(t) = templates {
        paths.push(("--templates", t));
    }
    paths.extend(input.paths.iter().map(|p| ("", p.as_path())));
    let shown = relative_to_common_base(&paths.iter().map(|(_, p)| *p).collect::<Vec<_>>());
    let mut words = vec!["toolgen".to_owned(), "gen".to_owned()];
    let mut positional = Vec::new();
    for ((flag, _), path) in paths.iter().zip(shown) {
        if flag.is_empty() {
            positional.push(path);
        } else {
            words.push(format!("{flag} {path}"));
        }
    }
    if let Some(f) = input.format {
        words.push(format!("--format {f}"));
    }
    for g in &input.groups {
        let pattern = g.as_str();
        let group = pattern
            .strip_prefix("^[a-zA-Z0-9]+-mcp_tool_(?:")
            .and_then(|p| p.strip_suffix(')'))
            .unwrap_or(pattern);
        words.push(format!("--groups {group}"));
    }
    words.extend(extra.iter().cloned());
    words.extend(positional);
    words.join(" ")
}

/// `paths` written relative to the deepest directory that holds them all
/// (`/`-separated; `.` for that directory itself).
pub(super) fn relative_to_common_base(paths: &[&std::path::Path]) -> Vec<String> {
    use std::path::{Component, PathBuf};
    // Lexically absolute, `.` and `..` resolved: the same directory named two
    // ways gives one base.
    let absolute: Vec<PathBuf> = paths
        .iter()
        .map(|p| {
            let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
            let mut clean = PathBuf::new();
            for c in abs.components() {
                match c {
                    Component::CurDir => {}
                    Component::ParentDir => {
                        clean.pop();
                    }
                    c => clean.push(c),
                }
            }
            clean
        })
        .collect();
    let mut base: Option<PathBuf> = None;
    for p in &absolute {
        // A file's directory holds it; a path that does not exist yet (the
        // output) is taken as a directory.
        let dir = if p.is_file() {
            p.parent()
                .map(std::path::Path::to_path_buf)
                .unwrap_or_default()
        } else {
            p.clone()
        };
        base = Some(match base {
            None => dir,
            Some(b) => b
                .components()
                .zip(dir.components())
                .take_while(|(x, y)| x == y)
                .map(|(x, _)| x)
                .collect(),
        });
    }
    let base = base.unwrap_or_default();
    absolute
        .iter()
        .map(|p| {
            let rel = p.strip_prefix(&base).unwrap_or(p);
            let s = rel.to_string_lossy().replace('\\', "/");
            if s.is_empty() { ".".to_owned() } else { s }
        })
        .collect()
}

pub(super) fn validate(input: &InputArgs, reporter: &Reporter) -> ExitCode {
    let g = generator(input, reporter);
    let loaded = g.load();
    reporter.diagnostics(&loaded);
    let ok = g.accepts(&loaded);
    reporter.summary(&loaded, !ok, if ok { "validated" } else { "validation" });
    // The process ends next: freeing the trees piece by piece would only cost time.
    std::mem::forget(loaded);
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The generator of `gen` and `watch`, and the command line it records as
/// the one that regenerates the output.
pub(super) fn gen_generator(args: &GenArgs, reporter: &Reporter) -> Generator {
    let input = &args.input;
    let out = &args.out;
    let mut g = generator(input, reporter);
    let mut extra = Vec::new();
    if !args.emit.is_empty() {
        let names: Vec<&str> = args.emit.iter().map(|k| k.as_str()).collect();
        extra.push(format!("--emit {}", names.join(",")));
    }
    for kind in &args.emit {
        g = g.output(*kind);
    }
    if let Some(dir) = &args.templates {
        g = g.templates(dir);
    }
    if let Some(b) = args.csharp_bridge {
        let name = if b == CsharpBridge::External {
            "external"
        } else {
            "bundled"
        };
        extra.push(format!("--csharp-bridge {name}"));
        g = g.csharp_bridge(b);
    }
    let runtime = args
        .runtime
        .clone()
        .or(args.rust_runtime_path.clone().map(RuntimeSource::Path));
    if let Some(r) = runtime {
        extra.push(format!("--runtime {r}"));
        g = g.runtime(r);
    }
    let cache = if args.no_cache {
        None
    } else {
        args.cache_dir.clone().or_else(|| {
            std::env::current_dir()
                .ok()
                .and_then(|cwd| crate::default_cache_dir(&cwd))
        })
    };
    g.regenerate_command(regenerate_command(
        input,
        out,
        args.templates.as_deref(),
        &extra,
    ))
    .out_dir(out)
    .cache_dir(cache)
    .prune(if args.prune_all {
        Prune::All
    } else {
        Prune::Owned
    })
}

pub(super) fn gen_check(g: &Generator, out: &std::path::Path, reporter: &Reporter) -> ExitCode {
    let (loaded, report) = match g.check() {
        Ok(r) => r,
        Err(e) => return generate_error(e, reporter),
    };
    reporter.diagnostics(&loaded);
    if report.is_clean() {
        reporter.summary(&loaded, false, &format!("{} is up to date", out.display()));
        return ExitCode::SUCCESS;
    }
    for (kind, list) in [
        ("stale", &report.stale),
        ("missing", &report.missing),
        ("extra", &report.extra),
    ] {
        for p in list {
            eprintln!("{kind}: {}", out.join(p).display());
        }
    }
    eprintln!(
        "{} is out of date; run `toolgen gen` to regenerate it",
        out.display()
    );
    ExitCode::from(1)
}

pub(super) fn gen_write(
    g: &Generator,
    out: &std::path::Path,
    reporter: &Reporter,
    stats: bool,
    exiting: bool,
) -> ExitCode {
    let done = match g.generate() {
        Ok(d) => d,
        Err(e) => return generate_error(e, reporter),
    };
    if stats {
        let t = done.timings;
        eprintln!(
            "stats: load_ms={} render_ms={} write_ms={}",
            t.load.as_millis(),
            t.render.as_millis(),
            t.write.as_millis()
        );
    }
    if let Some(loaded) = &done.loaded {
        reporter.diagnostics(loaded);
    }
    reporter.summary_of(done.summary, "generated");
    if matches!(reporter.format, MessageFormat::Human) {
        if done.loaded.is_none() {
            eprintln!(
                "nothing changed since the last run: {} files up to date in {}",
                done.report.unchanged,
                out.display()
            );
        } else {
            eprintln!(
                "wrote {} file{}, {} unchanged, removed {} stale file{} in {}",
                done.report.written.len(),
                plural(done.report.written.len()),
                done.report.unchanged,
                done.report.removed.len(),
                plural(done.report.removed.len()),
                out.display()
            );
        }
    }
    if exiting {
        // The process ends next: freeing thousands of tools' trees piece by
        // piece would only cost time. (`watch` frees each run's.)
        std::mem::forget(done);
    }
    ExitCode::SUCCESS
}

/// `toolgen watch`: generates, then again whenever a file the last run read
/// (or would find now) changes, until the process is stopped.
pub(super) fn watch(
    g: &Generator,
    args: &GenArgs,
    reporter: &Reporter,
    interval: std::time::Duration,
) -> ExitCode {
    let mut last = None;
    eprintln!(
        "watching {} (Ctrl-C to stop)",
        args.input
            .paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    loop {
        let now = g.watch_fingerprint();
        if last != Some(now) {
            let started = Instant::now();
            let code = gen_write(g, &args.out, reporter, false, false);
            if matches!(reporter.format, MessageFormat::Human) {
                eprintln!(
                    "[{} in {} ms] waiting for changes",
                    if code == ExitCode::SUCCESS {
                        "done"
                    } else {
                        "failed"
                    },
                    started.elapsed().as_millis()
                );
            }
            // What the run read, as it was when it started (a change made
            // while it ran is seen on the next look).
            last = Some(now);
        }
        std::thread::sleep(interval);
    }
}

pub(super) fn breaking(
    g: &Generator,
    against: &crate::against::Against,
    generated_code: bool,
    reporter: &Reporter,
) -> ExitCode {
    let found = match g.breaking(against, generated_code) {
        Ok(f) => f,
        Err(GenerateError::Invalid(loaded)) => {
            reporter.diagnostics(&loaded);
            reporter.summary(&loaded, true, "validation");
            eprintln!("fix the specs first: `toolgen breaking` compares valid specs");
            return ExitCode::from(1);
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    reporter.diagnostics(&found);
    let errors = found.diagnostics.count(Severity::Error);
    let warnings = found.diagnostics.count(Severity::Warning);
    let notes = found.diagnostics.len() - errors - warnings;
    let with = match against {
        crate::against::Against::Git(r) => r.clone(),
        crate::against::Against::Dir(d) => d.display().to_string(),
    };
    if matches!(reporter.format, MessageFormat::Human) {
        eprintln!(
            "breaking changes against {with}: {errors} error{}, {warnings} warning{}, {notes} note{} in {} tool{}",
            plural(errors),
            plural(warnings),
            plural(notes),
            found.project.tool_count(),
            plural(found.project.tool_count())
        );
    } else {
        println!(
            "{}",
            serde_json::json!({"summary": {"ok": errors == 0, "errors": errors, "warnings": warnings, "notes": notes, "against": with}})
        );
    }
    if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

pub(super) fn init(
    dir: &std::path::Path,
    format: InitFormat,
    name: Option<&str>,
    specs: Option<&str>,
    server: Option<InitServer>,
    source: Option<RuntimeSource>,
) -> ExitCode {
    use crate::scaffold::ServerKind;
    let format = match format {
        InitFormat::Mcp => Format::Mcp,
        InitFormat::Editormcp => Format::EditorMcp,
        InitFormat::Rave => Format::Rave,
    };
    let source = source.unwrap_or(RuntimeSource::Version(
        crate::emit::runtime_crate::VERSION.to_owned(),
    ));
    let server = server.map(|s| match s {
        InitServer::Toolgen => (ServerKind::Toolgen, &source),
        InitServer::Rmcp => (ServerKind::Rmcp, &source),
    });
    match crate::scaffold::init(dir, format, name, specs, server) {
        Ok(done) => {
            eprintln!(
                "created the tool set in {}:\n  {}  (the manifest)\n  {}  (an example tool)\n  {}/  (JSON Schemas for editors)",
                dir.display(),
                shown(&done.manifest),
                shown(&done.spec),
                shown(&dir.join(crate::scaffold::SCHEMA_DIR)),
            );
            if done.server.is_empty() {
                eprintln!(
                    "next: `toolgen new ID --dir {}`, then `toolgen validate {}`",
                    dir.display(),
                    dir.display()
                );
            } else {
                let files: Vec<String> = done.server.iter().map(|p| shown(p)).collect();
                eprintln!(
                    "and the server: {}\nnext: `cargo run` serves the tools over stdio (`cargo run -- --http 127.0.0.1:8080`: over HTTP)",
                    files.join(", ")
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

pub(super) fn new_spec(start: &std::path::Path, id: &str) -> ExitCode {
    match crate::scaffold::new_spec(start, id) {
        Ok(path) => {
            eprintln!("created {}", shown(&path));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

pub(super) fn schemas(out: &std::path::Path) -> ExitCode {
    match crate::scaffold::write_schemas(out) {
        Ok(written) => {
            for p in written {
                eprintln!("wrote {}", shown(&p));
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

pub(super) fn convert(
    input: &InputArgs,
    to: Format,
    out: &std::path::Path,
    reporter: &Reporter,
) -> ExitCode {
    match generator(input, reporter).out_dir(out).convert(to) {
        Ok(done) => {
            if let Some(loaded) = &done.loaded {
                reporter.diagnostics(loaded);
            }
            eprintln!(
                "converted {} tools to {to}: {} file(s) written, {} unchanged in {}",
                done.summary.tools,
                done.report.written.len(),
                done.report.unchanged,
                out.display()
            );
            ExitCode::SUCCESS
        }
        Err(GenerateError::Invalid(loaded)) => {
            reporter.diagnostics(&loaded);
            reporter.summary(&loaded, true, "conversion");
            eprintln!("nothing was written");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

pub(super) fn explain(rule: &str) -> ExitCode {
    match diag::find_rule(rule) {
        Some(r) => {
            println!(
                "{} ({}, {} by default)\n\n{}\n\n{}",
                r.code,
                r.name,
                r.severity.as_str(),
                r.summary,
                r.explanation
            );
            if let Some(why) = diag::why_an_error(r) {
                println!("\nAlways an error: {why}.");
            }
            ExitCode::SUCCESS
        }
        None => {
            eprintln!("error: no rule `{rule}`; `toolgen rules` lists them");
            ExitCode::from(2)
        }
    }
}
