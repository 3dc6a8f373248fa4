//! `toolgen`: the command-line interface over the toolgen library.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};
use toolgen::diag::{self, HumanRenderer, Severity};
use toolgen::ir::Format;
use toolgen::load::{DEFAULT_MAX_FILE_SIZE, Loaded};
use toolgen::output::Prune;
use toolgen::{GenerateError, Generator};

/// Schema-first code generator for MCP tools.
///
/// Reads tool specs (EditorMCP JSON; RAVE YAML and MCP tool JSON are coming),
/// validates them with located diagnostics, and generates the JSON catalog
/// that MCP clients read.
#[derive(Parser)]
#[command(name = "toolgen", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,

    /// How diagnostics are printed.
    #[arg(long, global = true, value_enum, default_value_t = MessageFormat::Human)]
    message_format: MessageFormat,

    /// When to color human output.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,

    /// Print wall time and peak memory to stderr when done (for benchmarks).
    #[arg(long, global = true, hide = true)]
    stats: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum MessageFormat {
    /// rustc-style messages with source excerpts.
    Human,
    /// One JSON object per line.
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(clap::Args)]
struct InputArgs {
    /// Spec files or directories (searched recursively; `toolset.yaml` manifests group files).
    #[arg(required = true)]
    paths: Vec<PathBuf>,

    /// Read every spec in this format instead of detecting it from the content.
    #[arg(long, value_parser = parse_format)]
    format: Option<Format>,

    /// Fail on warnings too.
    #[arg(long)]
    deny_warnings: bool,

    /// Only tools in this group (a regex matched as `^[a-zA-Z0-9]+-mcp_tool_GROUP`, as
    /// RAVE's `mcptool_list()` does). Repeat for several groups; they combine with OR.
    #[arg(long = "groups", short = 'g', value_name = "REGEX", value_parser = parse_group)]
    groups: Vec<regex::Regex>,

    /// Refuse spec files larger than this many bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_FILE_SIZE)]
    max_file_size: u64,
}

#[derive(Subcommand)]
enum Command {
    /// Check spec files and report every problem (exit 1 on errors).
    Validate(InputArgs),
    /// Validate, then generate all outputs into a directory.
    Gen {
        #[command(flatten)]
        input: InputArgs,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        /// Write nothing; exit 1 if the output directory is not up to date.
        #[arg(long)]
        check: bool,
        /// Path of the `toolgen-runtime` crate for the generated Rust crate's
        /// Cargo.toml (default: the crates.io release).
        #[arg(long, value_name = "PATH")]
        rust_runtime_path: Option<String>,
        /// Treat every file in the output directory as generated: remove (or, with
        /// --check, report) files that would not be generated. By default only files
        /// toolgen wrote earlier are removed.
        #[arg(long)]
        prune_all: bool,
        /// A directory whose files override the built-in templates of the same
        /// relative name (e.g. `csharp/tool.cs.jinja`); see `templates/README.md`.
        #[arg(long, value_name = "DIR")]
        templates: Option<PathBuf>,
    },
    /// Convert specs into another input format (written as `OUT/<tool set>/<id>.yaml`).
    Convert {
        #[command(flatten)]
        input: InputArgs,
        /// Target format (only `rave` so far).
        #[arg(long, value_parser = parse_format)]
        to: Format,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
    },
    /// List every validation rule.
    Rules,
    /// Explain a rule, by code (TG0304) or name (default-type-mismatch).
    Explain { rule: String },
}

fn parse_group(s: &str) -> Result<regex::Regex, String> {
    toolgen::load::group_filters(&[s.to_owned()]).map(|mut v| v.remove(0))
}

fn parse_format(s: &str) -> Result<Format, String> {
    Format::parse(s).ok_or_else(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
        format!(
            "unknown format `{s}`; expected one of: {}",
            names.join(", ")
        )
    })
}

struct Reporter {
    format: MessageFormat,
    color: bool,
}

impl Reporter {
    fn diagnostics(&self, loaded: &Loaded) {
        let stderr = std::io::stderr();
        let mut err = stderr.lock();
        match self.format {
            MessageFormat::Human => {
                let r = HumanRenderer {
                    db: &loaded.db,
                    color: self.color,
                };
                for d in loaded.diagnostics.iter() {
                    let _ = writeln!(err, "{}", r.render(d));
                }
            }
            MessageFormat::Json => {
                let stdout = std::io::stdout();
                let mut out = stdout.lock();
                for d in loaded.diagnostics.iter() {
                    let _ = writeln!(out, "{}", diag::render_json(&loaded.db, d));
                }
            }
        }
    }

    fn summary(&self, loaded: &Loaded, failed: bool, what: &str) {
        let errors = loaded.diagnostics.count(Severity::Error);
        let warnings = loaded.diagnostics.count(Severity::Warning);
        let sets = loaded.project.tool_sets.len();
        let tools = loaded.project.tool_count();
        let line = if failed {
            format!(
                "{what} failed: {errors} error{}, {warnings} warning{} in {} file{}",
                plural(errors),
                plural(warnings),
                loaded.spec_files,
                plural(loaded.spec_files)
            )
        } else {
            format!(
                "{what}: {tools} tool{} in {sets} tool set{} ({warnings} warning{})",
                plural(tools),
                plural(sets),
                plural(warnings)
            )
        };
        match self.format {
            MessageFormat::Human => eprintln!("{line}"),
            MessageFormat::Json => {
                let v = serde_json::json!({
                    "summary": { "ok": !failed, "errors": errors, "warnings": warnings, "toolSets": sets, "tools": tools }
                });
                println!("{v}");
            }
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let started = Instant::now();
    let color = match cli.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
        }
    };
    let reporter = Reporter {
        format: cli.message_format,
        color,
    };
    let code = run(cli.command, &reporter, cli.stats);
    if cli.stats {
        eprintln!(
            "stats: wall_ms={} peak_rss_kib={}",
            started.elapsed().as_millis(),
            peak_rss_kib().map_or_else(|| "n/a".to_owned(), |k| k.to_string())
        );
    }
    code
}

fn generator(input: &InputArgs) -> Generator {
    Generator::new()
        .inputs(input.paths.iter().cloned())
        .format(input.format)
        .deny_warnings(input.deny_warnings)
        .max_file_size(input.max_file_size)
        .groups(input.groups.clone())
}

fn run(command: Command, reporter: &Reporter, stats: bool) -> ExitCode {
    match command {
        Command::Validate(input) => {
            let g = generator(&input);
            let loaded = g.load();
            reporter.diagnostics(&loaded);
            let ok = g.accepts(&loaded);
            reporter.summary(&loaded, !ok, if ok { "validated" } else { "validation" });
            if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Command::Gen {
            input,
            out,
            check,
            prune_all,
            rust_runtime_path,
            templates,
        } => {
            let mut g = generator(&input);
            if let Some(dir) = templates {
                g = g.templates(dir);
            }
            if let Some(path) = rust_runtime_path {
                g = g.rust_runtime_path(&path);
            }
            let g = g
                .out_dir(&out)
                .prune(if prune_all { Prune::All } else { Prune::Owned });
            if check {
                match g.check() {
                    Ok((loaded, report)) => {
                        reporter.diagnostics(&loaded);
                        if report.is_clean() {
                            reporter.summary(
                                &loaded,
                                false,
                                &format!("{} is up to date", out.display()),
                            );
                            ExitCode::SUCCESS
                        } else {
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
                    }
                    Err(e) => generate_error(e, reporter),
                }
            } else {
                match g.generate() {
                    Ok(done) => {
                        if stats {
                            let t = done.timings;
                            eprintln!(
                                "stats: load_ms={} render_ms={} write_ms={}",
                                t.load.as_millis(),
                                t.render.as_millis(),
                                t.write.as_millis()
                            );
                        }
                        reporter.diagnostics(&done.loaded);
                        reporter.summary(&done.loaded, false, "generated");
                        if matches!(reporter.format, MessageFormat::Human) {
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
                        ExitCode::SUCCESS
                    }
                    Err(e) => generate_error(e, reporter),
                }
            }
        }
        Command::Convert { input, to, out } => {
            let g = generator(&input);
            let loaded = g.load();
            reporter.diagnostics(&loaded);
            if !g.accepts(&loaded) {
                reporter.summary(&loaded, true, "conversion");
                eprintln!("nothing was written");
                return ExitCode::from(1);
            }
            if to != Format::Rave {
                eprintln!("error: converting to `{to}` is not supported yet; use `--to rave`");
                return ExitCode::from(2);
            }
            let mut files = toolgen::emit::GeneratedFiles::new();
            for set in &loaded.project.tool_sets {
                for tool in &set.tools {
                    files.add(
                        format!("{}/{}.yaml", set.name, tool.id.value),
                        toolgen::emit::rave::to_rave_yaml(tool),
                    );
                }
            }
            match toolgen::output::write(&out, &files, Prune::Owned) {
                Ok(report) => {
                    eprintln!(
                        "converted {} tools to {to}: {} file(s) written, {} unchanged in {}",
                        loaded.project.tool_count(),
                        report.written.len(),
                        report.unchanged,
                        out.display()
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: cannot write output: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Command::Rules => {
            for r in diag::rule::ALL {
                println!(
                    "{}  {:<7}  {:<26} {}",
                    r.code,
                    r.severity.as_str(),
                    r.name,
                    r.summary
                );
            }
            ExitCode::SUCCESS
        }
        Command::Explain { rule } => match diag::find_rule(&rule) {
            Some(r) => {
                println!(
                    "{} ({}, {} by default)\n\n{}\n\n{}",
                    r.code,
                    r.name,
                    r.severity.as_str(),
                    r.summary,
                    r.explanation
                );
                ExitCode::SUCCESS
            }
            None => {
                eprintln!("error: no rule `{rule}`; `toolgen rules` lists them");
                ExitCode::from(2)
            }
        },
    }
}

fn generate_error(e: GenerateError, reporter: &Reporter) -> ExitCode {
    match e {
        GenerateError::Invalid(loaded) => {
            reporter.diagnostics(&loaded);
            reporter.summary(&loaded, true, "generation");
            eprintln!("nothing was written");
            ExitCode::from(1)
        }
        other => {
            eprintln!("error: {other}");
            ExitCode::from(2)
        }
    }
}

/// Peak resident set size of this process, from /proc (Linux only).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
