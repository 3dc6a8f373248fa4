//! The command line as clap reads it: the commands and their arguments.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::diag::{self, LintLevel};
use crate::emit::csharp_bridge::CsharpBridge;
use crate::generator::Generator;
use crate::ir::{Format, OutputKind, RuntimeSource};
use crate::load::DEFAULT_MAX_FILE_SIZE;

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
pub(super) struct Cli {
    #[command(subcommand)]
    pub(super) command: Command,

    /// How diagnostics are printed.
    #[arg(long, global = true, value_enum, default_value_t = MessageFormat::Human)]
    pub(super) message_format: MessageFormat,

    /// When to color human output.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub(super) color: ColorChoice,

    /// Print wall time and peak memory to stderr when done (for benchmarks).
    #[arg(long, global = true, hide = true)]
    pub(super) stats: bool,
}

#[derive(Clone, Copy, ValueEnum)]
pub(super) enum MessageFormat {
    /// rustc-style messages with source excerpts.
    Human,
    /// One JSON object per line.
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
pub(super) enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(clap::Args)]
pub(super) struct InputArgs {
    /// Spec files or directories (searched recursively; `toolset.yaml` manifests
    /// group files). Optional with `--manifest`.
    #[arg(required_unless_present = "manifest")]
    pub(super) paths: Vec<PathBuf>,

    /// The manifest (`toolset.yaml`) every spec belongs to, wherever it is; without
    /// PATHS, its `specs` folders (or its directory) are read.
    #[arg(long, value_name = "FILE")]
    pub(super) manifest: Option<PathBuf>,

    /// Read every spec in this format instead of detecting it from the content.
    #[arg(long, value_parser = parse_format)]
    pub(super) format: Option<Format>,

    /// Fail on warnings too.
    #[arg(long)]
    pub(super) deny_warnings: bool,

    #[command(flatten)]
    pub(super) lints: LintArgs,

    /// Only tools in this group (a regex matched as `^[a-zA-Z0-9]+-mcp_tool_GROUP`, as
    /// RAVE's `mcptool_list()` does). Repeat for several groups; they combine with OR.
    #[arg(long = "groups", short = 'g', value_name = "REGEX", value_parser = parse_group)]
    pub(super) groups: Vec<regex::Regex>,

    /// Refuse spec files larger than this many bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_FILE_SIZE)]
    pub(super) max_file_size: u64,

    /// Check every tool against what these clients accept (comma-separated or
    /// repeated: openai, openai-strict, gemini, claude, claude-code, cursor, vscode,
    /// mcp), over the manifests' `clients` (docs/clients.md).
    #[arg(long, value_name = "CLIENT", value_delimiter = ',', value_parser = parse_client)]
    pub(super) clients: Vec<crate::ir::Client>,
}

/// What `gen` and `watch` take.
#[derive(clap::Args)]
pub(super) struct GenArgs {
    #[command(flatten)]
    pub(super) input: InputArgs,
    /// Output directory.
    #[arg(long)]
    pub(super) out: PathBuf,
    /// Only these outputs (comma-separated or repeated): catalog, rust, csharp,
    /// docs, r (the R worker of tool sets implemented in R). Default: all (a tool set's manifest may leave some out).
    #[arg(long, value_name = "OUTPUT", value_delimiter = ',', value_parser = parse_output)]
    pub(super) emit: Vec<OutputKind>,
    /// Where the generated Rust crate gets toolgen-runtime: `bundled` (default:
    /// its source beside the crate, so it builds anywhere, offline), `path=DIR`
    /// (relative to the generated Cargo.toml), `git=URL[,rev=R|,branch=B|,tag=T]`,
    /// or `version=REQ`.
    #[arg(long, value_name = "SOURCE", value_parser = RuntimeSource::parse)]
    pub(super) runtime: Option<RuntimeSource>,
    /// Whether the C# bridge package (com.toolgen.bridge) is written beside the
    /// generated one as `csharp-bridge/` (`bundled`, the default) or is installed
    /// in the Unity project already (`external`).
    #[arg(long, value_name = "SOURCE", value_parser = CsharpBridge::parse)]
    pub(super) csharp_bridge: Option<CsharpBridge>,
    /// Same as `--runtime path=PATH`.
    #[arg(long, value_name = "PATH", hide = true, conflicts_with = "runtime")]
    pub(super) rust_runtime_path: Option<String>,
    /// Treat every file in the output directory as generated: remove (or, with
    /// --check, report) files that would not be generated. By default only files
    /// toolgen wrote earlier are removed.
    #[arg(long)]
    pub(super) prune_all: bool,
    /// A directory whose files override the built-in templates of the same
    /// relative name (e.g. `csharp/tool.cs.jinja`); see `templates/README.md`.
    #[arg(long, value_name = "DIR")]
    pub(super) templates: Option<PathBuf>,
    /// Where to keep what runs rendered, so that unchanged tools are not rendered
    /// again and a run with nothing changed is skipped. Default: $TOOLGEN_CACHE_DIR,
    /// else $CARGO_TARGET_DIR/toolgen-cache, else target/toolgen-cache of the Cargo
    /// workspace around the current directory (none outside one).
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    pub(super) cache_dir: Option<PathBuf>,
    /// Render everything, and keep nothing for later runs.
    #[arg(long)]
    pub(super) no_cache: bool,
}

/// `--allow`, `--warn`, `--deny`: rule levels for a run.
#[derive(clap::Args)]
pub(super) struct LintArgs {
    /// Do not report this rule (code such as TG0603, or name): a warning or a note, or
    /// (with `toolgen breaking`) a kind of change that is accepted.
    #[arg(long, value_name = "RULE", value_parser = lint(LintLevel::Allow))]
    pub(super) allow: Vec<String>,

    /// Report this rule as a warning (code or name).
    #[arg(long, value_name = "RULE", value_parser = lint(LintLevel::Warn))]
    pub(super) warn: Vec<String>,

    /// Report this rule as an error, failing the run (code or name).
    #[arg(long, value_name = "RULE", value_parser = lint(LintLevel::Deny))]
    pub(super) deny: Vec<String>,
}

impl LintArgs {
    /// `g` with these rule levels.
    pub(super) fn apply(&self, mut g: Generator) -> Generator {
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
pub(super) enum InitFormat {
    /// Standard MCP tool JSON.
    Mcp,
    /// EditorMCP tool definitions (Unity Editor bridge).
    Editormcp,
    /// RAVE tool YAML (R packages).
    Rave,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(super) enum InitServer {
    /// toolgen-runtime's own server.
    Toolgen,
    /// rmcp, the official Rust SDK.
    Rmcp,
}

#[derive(Subcommand)]
pub(super) enum Command {
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
        /// Also a Rust MCP server serving the tool set, in the Cargo package that
        /// holds DIR (`cargo new` it first): `build.rs`, `src/main.rs` and the
        /// dependencies. `toolgen` (the default): toolgen-runtime's server; `rmcp`:
        /// the official Rust SDK's, with the generated tools as its router.
        #[arg(long, value_enum, value_name = "KIND", num_args = 0..=1, default_missing_value = "toolgen")]
        server: Option<InitServer>,
        /// Where the server's `toolgen-runtime` and `toolgen` crates come from:
        /// `path=DIR` (a clone of the toolgen repository), `git=URL` (optionally
        /// `,rev=R`, `,branch=B` or `,tag=T`) or `version=REQ` (default: this
        /// toolgen's version, from the registry).
        #[arg(long, value_name = "SOURCE", value_parser = RuntimeSource::parse, requires = "server")]
        toolgen: Option<RuntimeSource>,
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
    /// Serve an editor over stdin and stdout (the Language Server Protocol):
    /// the rules' diagnostics as you type, completion, hover, go to
    /// definition, quick fixes and formatting of specs and `toolset.yaml`.
    Lsp,
}

pub(super) fn parse_group(s: &str) -> Result<regex::Regex, String> {
    crate::load::group_filters(&[s.to_owned()]).map(|mut v| v.remove(0))
}

pub(super) fn parse_format(s: &str) -> Result<Format, String> {
    parse_word(s, "format", Format::parse, &Format::NAMES)
}

pub(super) fn parse_client(s: &str) -> Result<crate::ir::Client, String> {
    use crate::ir::Client;
    parse_word(s, "client", Client::parse, &Client::NAMES)
}

pub(super) fn parse_output(s: &str) -> Result<OutputKind, String> {
    parse_word(s, "output", OutputKind::parse, &OutputKind::NAMES)
}

/// A word of a fixed set (`--format rave`), or what the set holds.
pub(super) fn parse_word<T>(
    s: &str,
    what: &str,
    parse: fn(&str) -> Option<T>,
    names: &[&str],
) -> Result<T, String> {
    parse(s).ok_or_else(|| format!("unknown {what} `{s}`; {}", crate::text::suggest(s, names)))
}

/// A value parser for `--allow/--warn/--deny`: the rule must exist and be settable.
pub(super) fn lint(level: LintLevel) -> impl Fn(&str) -> Result<String, String> + Clone {
    move |s: &str| diag::configurable_rule(s, level).map(|r| r.code.to_owned())
}
