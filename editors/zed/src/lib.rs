//! Starts `toolgen lsp` (the `toolgen` on the worktree's PATH) for JSON and
//! YAML files; the server answers for spec files and `toolset.yaml` only.

use zed_extension_api::{self as zed, LanguageServerId, Result, Worktree};

struct Toolgen;

impl zed::Extension for Toolgen {
    fn new() -> Self {
        Toolgen
    }

    fn language_server_command(
        &mut self,
        _id: &LanguageServerId,
        worktree: &Worktree,
    ) -> Result<zed::Command> {
        let command = worktree.which("toolgen").ok_or(
            "toolgen is not on PATH: install it with `cargo install toolgen`".to_owned(),
        )?;
        Ok(zed::Command {
            command,
            args: vec!["lsp".to_owned()],
            env: Vec::new(),
        })
    }
}

zed::register_extension!(Toolgen);
