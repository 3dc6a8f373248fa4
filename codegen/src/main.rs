//! `toolgen`: the command-line interface over the toolgen library.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};
use toolgen::diag::{self, HumanRenderer, LintLevel, Severity};
use toolgen::emit::csharp_bridge::CsharpBridge;
use toolgen::ir::{Format, OutputKind, RuntimeSource};
use toolgen::load::{DEFAULT_MAX_FILE_SIZE, Loaded};
use toolgen::output::Prune;
use toolgen::{GenerateError, Generator, Progress, Summary};

/// mimalloc: rendering builds and drops millions of small token trees and
/// strings on every core, where glibc's allocator spent a quarter of the time
/// (see docs/decisions.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Schema-first code generator for MCP tools.
///
/// Reads tool specs in three formats (EditorMCP JSON, RAVE YAML written by R
/// packages, and standard MCP tool JSON), validates them with located
/// diagnostics, and generates the JSON catalog MCP clients read, Rust types
/// with a tools trait and dispatch, a C# bridge for the Unity Editor, and an
/// mdBook docs site.
///
/// Start with `toolgen init DIR --format mcp` and `toolgen new ID --dir DIR`.
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
    /// Spec files or directories (searched recursively; `toolset.yaml` manifests
    /// group files). Optional with `--manifest`.
    #[arg(required_unless_present = "manifest")]
    paths: Vec<PathBuf>,

    /// The manifest (`toolset.yaml`) every spec belongs to, wherever it is; without
    /// PATHS, its `specs` folders (or its directory) are read.
    #[arg(long, value_name = "FILE")]
    manifest: Option<PathBuf>,

    /// Read every spec in this format instead of detecting it from the content.
    #[arg(long, value_parser = parse_format)]
    format: Option<Format>,

    /// Fail on warnings too.
    #[arg(long)]
    deny_warnings: bool,

    #[command(flatten)]
    lints: LintArgs,

    /// Only tools in this group (a regex matched as `^[a-zA-Z0-9]+-mcp_tool_GROUP`, as
    /// RAVE's `mcptool_list()` does). Repeat for several groups; they combine with OR.
    #[arg(long = "groups", short = 'g', value_name = "REGEX", value_parser = parse_group)]
    groups: Vec<regex::Regex>,

    /// Refuse spec files larger than this many bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_FILE_SIZE)]
    max_file_size: u64,
}

/// What `gen` and `watch` take.
#[derive(clap::Args)]
struct GenArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Output directory.
    #[arg(long)]
    out: PathBuf,
    /// Only these outputs (comma-separated or repeated): catalog, rust, csharp,
    /// docs, r (the R worker of tool sets implemented in R). Default: all (a tool set's manifest may leave some out).
    #[arg(long, value_name = "OUTPUT", value_delimiter = ',', value_parser = parse_output)]
    emit: Vec<OutputKind>,
    /// Where the generated Rust crate gets toolgen-runtime: `bundled` (default:
    /// its source beside the crate, so it builds anywhere, offline), `path=DIR`
    /// (relative to the generated Cargo.toml), `git=URL[,rev=R|,branch=B|,tag=T]`,
    /// or `version=REQ`.
    #[arg(long, value_name = "SOURCE", value_parser = RuntimeSource::parse)]
    runtime: Option<RuntimeSource>,
    /// Whether the C# bridge package (com.toolgen.bridge) is written beside the
    /// generated one as `csharp-bridge/` (`bundled`, the default) or is installed
    /// in the Unity project already (`external`).
    #[arg(long, value_name = "SOURCE", value_parser = CsharpBridge::parse)]
    csharp_bridge: Option<CsharpBridge>,
    /// Same as `--runtime path=PATH`.
    #[arg(long, value_name = "PATH", hide = true, conflicts_with = "runtime")]
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
    /// Where to keep what runs rendered, so that unchanged tools are not rendered
    /// again and a run with nothing changed is skipped. Default: $TOOLGEN_CACHE_DIR,
    /// else $CARGO_TARGET_DIR/toolgen-cache, else target/toolgen-cache of the Cargo
    /// workspace around the current directory (none outside one).
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    cache_dir: Option<PathBuf>,
    /// Render everything, and keep nothing for later runs.
    #[arg(long)]
    no_cache: bool,
}

/// `--allow`, `--warn`, `--deny`: rule levels for a run.
#[derive(clap::Args)]
struct LintArgs {
    /// Do not report this rule (code such as TG0603, or name): a warning or a note, or
    /// (with `toolgen breaking`) a kind of change that is accepted.
    #[arg(long, value_name = "RULE", value_parser = lint(LintLevel::Allow))]
    allow: Vec<String>,

    /// Report this rule as a warning (code or name).
    #[arg(long, value_name = "RULE", value_parser = lint(LintLevel::Warn))]
    warn: Vec<String>,

    /// Report this rule as an error, failing the run (code or name).
    #[arg(long, value_name = "RULE", value_parser = lint(LintLevel::Deny))]
    deny: Vec<String>,
}

impl LintArgs {
    /// `g` with these rule levels.
    fn apply(&self, mut g: Generator) -> Generator {
        for (rules, level) in [
            (&self.allow, LintLevel::Allow),
            (&self.warn, LintLevel::Warn),
            (&self.deny, LintLevel::Deny),
        ] {
            for r in rules {
                g = g.lint(r.clone(), level);
            }
        }
        g
    }
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum InitFormat {
    /// Standard MCP tool JSON.
    Mcp,
    /// EditorMCP tool definitions (Unity Editor bridge).
    Editormcp,
    /// RAVE tool YAML (R packages).
    Rave,
}

#[derive(Subcommand)]
enum Command {
    /// Check spec files and report every problem (exit 1 on errors).
    Validate(InputArgs),
    /// Validate, then generate the outputs into a directory.
    Gen {
        #[command(flatten)]
        args: GenArgs,
        /// Write nothing; exit 1 if the output directory is not up to date.
        #[arg(long)]
        check: bool,
    },
    /// Generate, then watch the specs (and manifests, `$ref`'d schemas, templates)
    /// and generate again whenever one changes, until stopped (Ctrl-C). Only what
    /// changed is rendered again (see `--cache-dir`).
    Watch {
        #[command(flatten)]
        args: GenArgs,
        /// How often to look for changes, in milliseconds.
        #[arg(long, value_name = "MS", default_value_t = 200)]
        interval_ms: u64,
    },
    /// Compare the specs with an earlier version (a git revision or a directory) and
    /// report the changes that break callers: removed tools, stricter inputs, looser
    /// outputs, riskier behaviour. Exit 1 on any error.
    Breaking {
        /// Spec files or directories (default: the current directory).
        #[arg(default_value = ".")]
        paths: Vec<PathBuf>,
        /// The git revision to compare with (`main`, `HEAD~1`, a commit id).
        #[arg(
            long,
            value_name = "REF",
            required_unless_present = "against_dir",
            conflicts_with = "against_dir"
        )]
        against: Option<String>,
        /// A directory holding the earlier version: of the one PATH, or, with several,
        /// laid out like the current directory.
        #[arg(long, value_name = "DIR")]
        against_dir: Option<PathBuf>,
        /// The manifest every spec belongs to (as for `validate`).
        #[arg(long, value_name = "FILE")]
        manifest: Option<PathBuf>,
        #[command(flatten)]
        lints: LintArgs,
        /// Also report generated Rust and C# names that change while the wire stays the same
        /// (the `generated` category, otherwise on only where a manifest turns it on).
        #[arg(long)]
        generated_code: bool,
    },
    /// Create a tool set: `toolset.yaml`, one example spec, and the JSON Schemas
    /// editors use to complete and check specs (in `DIR/.toolgen/`).
    Init {
        /// Where (default: the current directory; created when missing).
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// The spec format.
        #[arg(long, value_enum)]
        format: InitFormat,
        /// The tool set's name (default: from the directory's name).
        #[arg(long)]
        name: Option<String>,
        /// A folder below DIR for the spec files, named by the manifest (for a
        /// folder another program owns, such as an R package's `inst/mcp/tools`).
        #[arg(long, value_name = "FOLDER")]
        specs: Option<String>,
    },
    /// Add a spec for a new tool, with every field its format requires, to a tool set.
    New {
        /// The tool's id (EditorMCP `category.action`, an MCP name, a RAVE
        /// `pkg-mcp_tool_group_action` or just `group_action`).
        id: String,
        /// A directory in or below the tool set (default: the current directory).
        #[arg(long, default_value = ".")]
        dir: PathBuf,
        /// The tool set's manifest, instead of searching from `--dir`.
        #[arg(long, value_name = "FILE", conflicts_with = "dir")]
        manifest: Option<PathBuf>,
    },
    /// Write the JSON Schemas of the spec formats and of `toolset.yaml` (for editors).
    Schemas {
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
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
    parse_word(s, "format", Format::parse, &Format::NAMES)
}

fn parse_output(s: &str) -> Result<OutputKind, String> {
    parse_word(s, "output", OutputKind::parse, &OutputKind::NAMES)
}

/// A word of a fixed set (`--format rave`), or what the set holds.
fn parse_word<T>(
    s: &str,
    what: &str,
    parse: fn(&str) -> Option<T>,
    names: &[&str],
) -> Result<T, String> {
    parse(s).ok_or_else(|| format!("unknown {what} `{s}`; {}", toolgen::text::suggest(s, names)))
}

/// A value parser for `--allow/--warn/--deny`: the rule must exist and be settable.
fn lint(level: LintLevel) -> impl Fn(&str) -> Result<String, String> + Clone {
    move |s: &str| diag::configurable_rule(s, level).map(|r| r.code.to_owned())
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

    fn summary_of(&self, s: Summary, what: &str) {
        let line = format!(
            "{what}: {} tool{} in {} tool set{} ({} warning{})",
            s.tools,
            plural(s.tools),
            s.tool_sets,
            plural(s.tool_sets),
            s.warnings,
            plural(s.warnings)
        );
        self.print_summary(&line, true, 0, s);
    }

    fn summary(&self, loaded: &Loaded, failed: bool, what: &str) {
        let s = Summary::of(loaded);
        if !failed {
            return self.summary_of(s, what);
        }
        let errors = loaded.diagnostics.count(Severity::Error);
        let line = format!(
            "{what} failed: {errors} error{}, {} warning{} in {} file{}",
            plural(errors),
            s.warnings,
            plural(s.warnings),
            loaded.spec_files,
            plural(loaded.spec_files)
        );
        self.print_summary(&line, false, errors, s);
    }

    /// The summary line, or (`--message-format json`) its JSON object.
    fn print_summary(&self, line: &str, ok: bool, errors: usize, s: Summary) {
        match self.format {
            MessageFormat::Human => eprintln!("{line}"),
            MessageFormat::Json => {
                let v = serde_json::json!({
                    "summary": { "ok": ok, "errors": errors, "warnings": s.warnings, "toolSets": s.tool_sets, "tools": s.tools }
                });
                println!("{v}");
            }
        }
    }

    /// A progress line for long runs: only on a terminal, in human mode, outside CI.
    fn progress(&self) -> Progress {
        let on = matches!(self.format, MessageFormat::Human)
            && std::io::stderr().is_terminal()
            && std::env::var_os("CI").is_none();
        if !on {
            return Progress::default();
        }
        let last = std::sync::Mutex::new((String::new(), usize::MAX));
        Progress::new(move |stage, done, total| {
            // Small runs finish before a line would help.
            if total < 200 {
                return;
            }
            let percent = done * 100 / total.max(1);
            let Ok(mut last) = last.lock() else { return };
            if last.0 == stage && last.1 == percent {
                return;
            }
            *last = (stage.to_owned(), percent);
            let mut err = std::io::stderr().lock();
            if done >= total {
                let _ = write!(err, "\r\x1b[K");
            } else {
                let _ = write!(err, "\r\x1b[K{stage}: {done}/{total} ({percent}%)");
            }
            let _ = err.flush();
        })
    }
}

fn shown(p: &std::path::Path) -> String {
    toolgen::source::display_path(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
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

fn generator(input: &InputArgs, reporter: &Reporter) -> Generator {
    let mut g = Generator::new()
        .inputs(input.paths.iter().cloned())
        .format(input.format)
        .deny_warnings(input.deny_warnings)
        .max_file_size(input.max_file_size)
        .groups(input.groups.clone())
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
fn regenerate_command(
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
fn relative_to_common_base(paths: &[&std::path::Path]) -> Vec<String> {
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

fn run(command: Command, reporter: &Reporter, stats: bool) -> ExitCode {
    match command {
        Command::Validate(input) => validate(&input, reporter),
        Command::Gen { args, check } => {
            let g = gen_generator(&args, reporter);
            if check {
                gen_check(&g, &args.out, reporter)
            } else {
                gen_write(&g, &args.out, reporter, stats, true)
            }
        }
        Command::Watch { args, interval_ms } => watch(
            &gen_generator(&args, reporter),
            &args,
            reporter,
            std::time::Duration::from_millis(interval_ms.max(10)),
        ),
        Command::Init {
            dir,
            format,
            name,
            specs,
        } => init(&dir, format, name.as_deref(), specs.as_deref()),
        Command::New { id, dir, manifest } => new_spec(&manifest.unwrap_or(dir), &id),
        Command::Schemas { out } => schemas(&out),
        Command::Convert { input, to, out } => convert(&input, to, &out, reporter),
        Command::Breaking {
            paths,
            against,
            against_dir,
            manifest,
            lints,
            generated_code,
        } => {
            let against = match (against, against_dir) {
                (_, Some(dir)) => toolgen::against::Against::Dir(dir),
                (Some(rev), None) => toolgen::against::Against::Git(rev),
                (None, None) => toolgen::against::Against::Git("HEAD".to_owned()),
            };
            let mut g = Generator::new().inputs(paths);
            if let Some(m) = manifest {
                g = g.manifest(m);
            }
            breaking(&lints.apply(g), &against, generated_code, reporter)
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
        Command::Explain { rule } => explain(&rule),
    }
}

fn validate(input: &InputArgs, reporter: &Reporter) -> ExitCode {
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
fn gen_generator(args: &GenArgs, reporter: &Reporter) -> Generator {
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
                .and_then(|cwd| toolgen::cache::default_dir(&cwd))
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

fn gen_check(g: &Generator, out: &std::path::Path, reporter: &Reporter) -> ExitCode {
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

fn gen_write(
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
fn watch(
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

fn breaking(
    g: &Generator,
    against: &toolgen::against::Against,
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
        toolgen::against::Against::Git(r) => r.clone(),
        toolgen::against::Against::Dir(d) => d.display().to_string(),
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

fn init(
    dir: &std::path::Path,
    format: InitFormat,
    name: Option<&str>,
    specs: Option<&str>,
) -> ExitCode {
    let format = match format {
        InitFormat::Mcp => Format::Mcp,
        InitFormat::Editormcp => Format::EditorMcp,
        InitFormat::Rave => Format::Rave,
    };
    match toolgen::scaffold::init(dir, format, name, specs) {
        Ok(done) => {
            eprintln!(
                "created the tool set in {}:\n  {}  (the manifest)\n  {}  (an example tool)\n  {}/  (JSON Schemas for editors)\nnext: `toolgen new ID --dir {}`, then `toolgen validate {}`",
                dir.display(),
                shown(&done.manifest),
                shown(&done.spec),
                shown(&dir.join(toolgen::scaffold::SCHEMA_DIR)),
                dir.display(),
                dir.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

fn new_spec(start: &std::path::Path, id: &str) -> ExitCode {
    match toolgen::scaffold::new_spec(start, id) {
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

fn schemas(out: &std::path::Path) -> ExitCode {
    match toolgen::scaffold::write_schemas(out) {
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

fn convert(input: &InputArgs, to: Format, out: &std::path::Path, reporter: &Reporter) -> ExitCode {
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

fn explain(rule: &str) -> ExitCode {
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
