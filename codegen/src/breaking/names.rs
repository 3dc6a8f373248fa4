//! The `generated` category: changes to the Rust and C# names of generated code
//! (and to how Rust serializes a type) while the wire stays the same.

use super::{Cx, Side, describe, tools_by_key};
use crate::diag::{Diagnostic, rule};
use crate::ir::{Project, Tool, ToolSet};
use crate::source::Loc;
use std::collections::BTreeMap;

/// Generated public names per (tool set, tool id): (what, wire position) ->
/// name, the tool's own (module, class) at position `""` (see
/// `emit::rust::api` and `emit::csharp::public_names`).
pub type Names = BTreeMap<(String, String), BTreeMap<(String, String), String>>;

/// The generated code whose names [`compare_names`] compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    Rust,
    CSharp,
}

impl Lang {
    pub(super) fn rule(self) -> &'static crate::diag::Rule {
        match self {
            Lang::Rust => &rule::BREAKING_RUST_NAME_CHANGED,
            Lang::CSharp => &rule::BREAKING_CSHARP_NAME_CHANGED,
        }
    }

    pub(super) fn word(self) -> &'static str {
        match self {
            Lang::Rust => "Rust",
            Lang::CSharp => "C#",
        }
    }

    pub(super) fn built_on(self) -> &'static str {
        match self {
            Lang::Rust => "code compiled against the generated crate breaks",
            Lang::CSharp => "handlers written against the generated C# stop compiling",
        }
    }

    /// The output these names are in.
    pub fn output(self) -> crate::ir::OutputKind {
        match self {
            Lang::Rust => crate::ir::OutputKind::Rust,
            Lang::CSharp => crate::ir::OutputKind::CSharp,
        }
    }
}

/// The generated-code category: tool sets whose generated Rust types
/// converted both ways and now convert one way (`rustSerde`), in tool sets
/// generated into Rust. Off unless a tool set's manifest turns `generated`
/// on, or `always` (the command line's `--generated-code`).
pub fn compare_rust_serde(
    old: &Project,
    new: &Project,
    old_loc: &dyn Fn(Loc) -> Loc,
    always: bool,
) -> Vec<Diagnostic> {
    let mut cx = Cx::new(old_loc);
    for new_set in &new.tool_sets {
        let Some(old_set) = old.tool_sets.iter().find(|s| s.name == new_set.name) else {
            continue;
        };
        let on = always || new_set.breaking.checks_generated();
        let narrowed = old_set.rust_serde() == crate::ir::RustSerde::Both
            && new_set.rust_serde() != crate::ir::RustSerde::Both;
        if !on || !narrowed || !new_set.wants(crate::ir::OutputKind::Rust) {
            continue;
        }
        let place = |s: &ToolSet| s.rust_serde.as_ref().map(|r| r.loc).or(s.manifest);
        let Some(at) = place(new_set) else { continue };
        cx.policy = Some(&new_set.breaking);
        let mut d = Diagnostic::at(
            &rule::BREAKING_RUST_SERDE_NARROWED,
            at,
            format!(
                "the generated Rust types of tool set `{}` now convert one way (`rustSerde: {}`): inputs are only read and outputs only written; the wire is the same, but code compiled against the generated crate that writes inputs or reads outputs breaks",
                new_set.name,
                new_set.rust_serde().as_str()
            ),
        )
        .label("one way")
        .help("keep `rustSerde: both`, or accept the change for code built on the generated Rust");
        if let Some(was) = place(old_set) {
            d = d.secondary((cx.old_loc)(was), "both ways before");
        }
        cx.emit(d);
    }
    cx.out
}

/// The generated-code category: `lang` names that changed while their wire
/// position stayed, for tools in both versions, in tool sets generated into
/// `lang`. Off unless a tool set's manifest turns `generated` on, or
/// `always` (the command line's `--generated-code`).
pub fn compare_names(
    lang: Lang,
    old: (&Project, &Names),
    new: (&Project, &Names),
    old_loc: &dyn Fn(Loc) -> Loc,
    always: bool,
) -> Vec<Diagnostic> {
    let mut cx = Cx::new(old_loc);
    let old_tools = tools_by_key(old.0);
    for ((set, id), (new_set, new_tool)) in tools_by_key(new.0) {
        let key = (set.clone(), id.clone());
        let (Some((_, old_tool)), Some(was), Some(now)) =
            (old_tools.get(&key), old.1.get(&key), new.1.get(&key))
        else {
            continue;
        };
        let on = always || new_set.breaking.checks_generated();
        if !on || !new_set.wants(lang.output()) {
            continue;
        }
        cx.tool = id.clone();
        cx.policy = Some(&new_set.breaking);
        for ((what, place), name) in now {
            let Some(before) = was.get(&(what.clone(), place.clone())) else {
                continue;
            };
            if before == name {
                continue;
            }
            let locate = |t: &Tool| {
                let (side, ptr) = place.split_at(place.find('/').unwrap_or(place.len()));
                let schema = if side == "input" { &t.input } else { &t.output };
                schema.locate(ptr).unwrap_or(t.id.loc)
            };
            let (at, old_at) = if place.is_empty() {
                (new_tool.id.loc, old_tool.id.loc)
            } else {
                (locate(new_tool), locate(old_tool))
            };
            let wire = match place.split_once('/') {
                _ if place.is_empty() => format!("tool `{id}`"),
                Some(("input", ptr)) => {
                    format!("{} of `{id}`", describe(Side::Input, &format!("/{ptr}")))
                }
                Some((_, ptr)) => {
                    format!("{} of `{id}`", describe(Side::Output, &format!("/{ptr}")))
                }
                None if place == "input" => format!("the input of `{id}`"),
                None => format!("the output of `{id}`"),
            };
            let (lang_word, built_on) = (lang.word(), lang.built_on());
            cx.emit(
                Diagnostic::at(
                    lang.rule(),
                    at,
                    format!("the generated {lang_word} {what} for {wire} was `{before}` and is now `{name}`; the wire is the same, but {built_on}"),
                )
                .secondary((cx.old_loc)(old_at), "before")
                .help(format!("keep the name (a definition's name, a property's spelling), or accept the change for code built on the generated {lang_word}")),
            );
        }
    }
    cx.out
}
