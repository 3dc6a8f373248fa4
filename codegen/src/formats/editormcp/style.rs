//! The EditorMCP conventions a tool's names and text are held to: ids,
//! display names in title case, descriptions of whole sentences, category ids.

use super::super::fields::Cx;
use crate::diag::{Diagnostic, rule};
use crate::ir::Spanned;

pub(super) fn check_id(cx: &mut Cx<'_>, id: &Spanned<String>) {
    let problem = id.value.split('.').find_map(|seg| {
        let mut chars = seg.chars();
        match chars.next() {
            None => Some("has an empty segment (two dots in a row, or a dot at an end)".to_owned()),
            Some(c) if !c.is_ascii_lowercase() => Some(format!(
                "has a segment `{seg}` that does not start with a lowercase letter"
            )),
            _ => chars
                .find(|c| !(c.is_ascii_alphanumeric() || *c == '-'))
                .map(|c| format!("contains `{}`, which is not allowed", c.escape_default())),
        }
    });
    if let Some(problem) = problem {
        let suggestion: String = id
            .value
            .to_ascii_lowercase()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        cx.report(
            Diagnostic::at(
                &rule::ID_FORMAT,
                id.loc,
                format!("tool id `{}` {problem}", id.value),
            )
            .label("invalid tool id")
            .help(format!(
                "ids are dot-separated lowercase segments (`category.action`), e.g. `{}`",
                suggestion.trim_matches(|c| c == '.' || c == '-')
            )),
        );
    }
}

pub(super) const SMALL_WORDS: &[&str] = &[
    "a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "per", "the", "to",
    "vs", "via", "with",
];

pub(super) fn check_name(cx: &mut Cx<'_>, name: &Spanned<String>) {
    let words: Vec<&str> = name.value.split_whitespace().collect();
    let lower = words.iter().enumerate().find(|(i, w)| {
        w.chars().next().is_some_and(|c| c.is_lowercase()) && (*i == 0 || !SMALL_WORDS.contains(w))
    });
    if let Some((_, w)) = lower {
        cx.report(
            Diagnostic::at(
                &rule::NAME_STYLE,
                name.loc,
                format!("display name `{}` is not in title case (`{w}`)", name.value),
            )
            .label("use title case")
            .help("capitalize each major word, e.g. `Dump Scene Hierarchy`"),
        );
    }
    let len = name.value.chars().count();
    if len > 50 {
        cx.report(
            Diagnostic::at(
                &rule::NAME_STYLE,
                name.loc,
                format!("display name is {len} characters long; keep it under 50"),
            )
            .label("too long"),
        );
    }
}

pub(super) fn sentence_count(text: &str) -> usize {
    let bytes: Vec<char> = text.trim().chars().collect();
    let mut n = 0;
    for (i, c) in bytes.iter().enumerate() {
        if matches!(c, '.' | '!' | '?') {
            let next = bytes.get(i + 1);
            let after = bytes.get(i + 2);
            if next.is_none()
                || (next.is_some_and(|c| c.is_whitespace())
                    && after.is_some_and(|c| c.is_uppercase()))
            {
                n += 1;
            }
        }
    }
    n.max(1)
}

pub(super) fn check_description(cx: &mut Cx<'_>, d: &Spanned<String>) {
    let n = sentence_count(&d.value);
    if n > 3 {
        cx.report(
            Diagnostic::at(
                &rule::DESCRIPTION_STYLE,
                d.loc,
                format!("description has {n} sentences; the format recommends one to three"),
            )
            .label("too long")
            .help("move limitations and details into `notes`"),
        );
    }
}

pub(super) fn check_category_format(cx: &mut Cx<'_>, c: &Spanned<String>) {
    let ok = c.value.split('.').all(|seg| {
        seg.chars().next().is_some_and(|ch| ch.is_ascii_lowercase())
            && seg
                .chars()
                .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-')
    });
    if !ok {
        cx.report(
            Diagnostic::at(
                &rule::CATEGORY_FORMAT,
                c.loc,
                format!("category `{}` is not lowercase dot-separated", c.value),
            )
            .label("invalid category")
            .help(format!("write it as `{}`", c.value.to_ascii_lowercase())),
        );
    }
}
