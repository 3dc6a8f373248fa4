//! `toolgen`, the command-line interface over the library (feature `cli`):
//! `args` says what the command line means, `commands` runs each command,
//! `report` shows what they found.

mod args;
mod commands;
mod report;

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;

use self::args::{Cli, ColorChoice, Command};
use self::commands::{
    breaking, convert, explain, gen_check, gen_generator, gen_write, init, new_spec, schemas,
    validate, watch,
};
use self::report::{Reporter, peak_rss_kib};
use crate::diag;
use crate::generator::Generator;

/// Runs the command line of this process; what the `toolgen` binary does.
pub fn main() -> ExitCode {
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
            server,
            toolgen,
        } => init(
            &dir,
            format,
            name.as_deref(),
            specs.as_deref(),
            server,
            toolgen,
        ),
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
                (_, Some(dir)) => crate::against::Against::Dir(dir),
                (Some(rev), None) => crate::against::Against::Git(rev),
                (None, None) => crate::against::Against::Git("HEAD".to_owned()),
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
        Command::Lsp => match crate::lsp::run() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
    }
}
