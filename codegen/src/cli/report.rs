//! How a command reports: diagnostics as text or JSON lines, summaries, and
//! the `--stats` line.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use crate::diag::{self, HumanRenderer, Severity};
use crate::generator::{GenerateError, Summary};
use crate::load::Loaded;
use crate::progress::Progress;

use super::args::MessageFormat;

pub(super) struct Reporter {
    pub(super) format: MessageFormat,
    pub(super) color: bool,
}

impl Reporter {
    pub(super) fn diagnostics(&self, loaded: &Loaded) {
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

    pub(super) fn summary_of(&self, s: Summary, what: &str) {
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

    pub(super) fn summary(&self, loaded: &Loaded, failed: bool, what: &str) {
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
    pub(super) fn print_summary(&self, line: &str, ok: bool, errors: usize, s: Summary) {
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
    pub(super) fn progress(&self) -> Progress {
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

pub(super) fn shown(p: &std::path::Path) -> String {
    crate::source::display_path(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
}

pub(super) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

pub(super) fn generate_error(e: GenerateError, reporter: &Reporter) -> ExitCode {
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
pub(super) fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
