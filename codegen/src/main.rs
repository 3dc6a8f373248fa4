//! `toolgen`: the command-line interface over the toolgen library.

/// mimalloc: rendering builds and drops millions of small token trees and
/// strings on every core, where glibc's allocator spent a quarter of the time
/// (see docs/decisions.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    toolgen::cli::main()
}
