//! The doc comments of generated items, and long lines of formatted code
//! wrapped to 100 characters (prettyplease leaves doc comments and string
//! literals as long as they come).

use crate::ir::Tool;

/// The doc attributes' values for `text`, one per line: a space after the
/// `///`, no `*/` (which would end a block comment), and prose wrapped at 80
/// characters, rustfmt's comment width (code blocks and tables as written).
pub(super) fn doc_values(text: &str) -> impl Iterator<Item = String> + '_ {
    let mut fenced = false;
    text.lines().flat_map(move |l| {
        let l = l.replace("*/", "* /");
        let verbatim = fenced || !is_prose(&l);
        fenced ^= l.trim_start().starts_with("```");
        if verbatim {
            vec![format!(" {l}")]
        } else {
            wrapped(&l, 80)
                .into_iter()
                .map(|w| format!(" {w}"))
                .collect()
        }
    })
}

/// Whether a doc line is prose that may be wrapped: not a code fence, a
/// table row, an indented code line or a heading.
fn is_prose(line: &str) -> bool {
    let t = line.trim_start();
    !(t.starts_with("```") || t.starts_with('|') || t.starts_with('#') || line.starts_with("    "))
}

/// `line` broken at spaces into lines of at most `width` characters (a word
/// longer than that on a line of its own); its leading spaces kept on each.
pub(super) fn wrapped(line: &str, width: usize) -> Vec<String> {
    let indent = &line[..line.len() - line.trim_start().len()];
    let mut lines: Vec<String> = Vec::new();
    for word in line.split_whitespace() {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 1 + word.chars().count() <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(format!("{indent}{word}")),
        }
    }
    if lines.is_empty() {
        lines.push(line.to_owned());
    }
    lines
}

/// `text` (a formatted file) with each line longer than 100 characters
/// wrapped at spaces to fit where that changes nothing: a `///` or `//!`
/// comment line (outside code blocks), and a line of code whose one string
/// literal is continued on the next lines with `\` (which drops the line
/// end and the next line's indent).
pub(super) fn wrap_long_lines(text: &str) -> String {
    if !text.lines().any(|l| l.chars().count() > 100) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 256);
    let mut fenced = false;
    let mut lexer = Lexer::Code;
    for line in text.split_inclusive('\n') {
        let starts = lexer;
        lexer = lexer.through(line);
        let body = line.trim_end_matches('\n');
        if body.chars().count() <= 100 {
            out.push_str(line);
            continue;
        }
        let t = body.trim_start();
        let indent = &body[..body.len() - t.len()];
        let marker = ["/// ", "//! "].into_iter().find(|m| t.starts_with(m));
        if let Some(marker) = marker.filter(|_| starts == Lexer::Code) {
            let doc = &t[marker.len()..];
            let verbatim = fenced || !is_prose(doc);
            fenced ^= doc.trim_start().starts_with("```");
            if verbatim {
                out.push_str(line);
                continue;
            }
            let width = 100 - indent.chars().count() - marker.len();
            for w in wrapped(doc, width) {
                out.push_str(indent);
                out.push_str(marker);
                out.push_str(&w);
                out.push('\n');
            }
        } else if let Some(lines) = (starts == Lexer::Code && lexer == Lexer::Code)
            .then(|| continued_string(body))
            .flatten()
        {
            for l in lines {
                out.push_str(&l);
                out.push('\n');
            }
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Where a formatted file's text is at a line's start: in code (or a
/// comment, which ends with its line), or inside a string literal that runs
/// on (a raw one with its count of `#`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lexer {
    Code,
    Str,
    Raw(usize),
}

impl Lexer {
    /// Where the text is after `line`.
    fn through(self, line: &str) -> Lexer {
        let b = line.as_bytes();
        let (mut state, mut i) = (self, 0);
        while i < b.len() {
            match state {
                Lexer::Str => match b[i] {
                    b'\\' => i += 1,
                    b'"' => state = Lexer::Code,
                    _ => {}
                },
                Lexer::Raw(n) => {
                    if b[i] == b'"'
                        && b[i + 1..].iter().take(n).filter(|c| **c == b'#').count() == n
                    {
                        state = Lexer::Code;
                        i += n;
                    }
                }
                Lexer::Code => match b[i] {
                    b'/' if b.get(i + 1) == Some(&b'/') => return Lexer::Code,
                    b'"' => state = Lexer::Str,
                    b'r' if i == 0 || !is_ident(b[i - 1]) => {
                        let hashes = b[i + 1..].iter().take_while(|c| **c == b'#').count();
                        if b.get(i + 1 + hashes) == Some(&b'"') {
                            state = Lexer::Raw(hashes);
                            i += 1 + hashes;
                        }
                    }
                    // A char literal (`'"'`, `'\''`); else a lifetime.
                    b'\'' if b.get(i + 1) == Some(&b'\\') => {
                        i += 2 + b[i + 2..].iter().position(|c| *c == b'\'').unwrap_or(0);
                    }
                    b'\'' if b.get(i + 2) == Some(&b'\'') => i += 2,
                    _ => {}
                },
            }
            i += 1;
        }
        state
    }
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// A line of code holding one plain string literal (`description: "..",`),
/// as lines of at most 100 characters that continue the literal with `\`;
/// `None` where it cannot be broken (no space to break at, another literal
/// on the line).
fn continued_string(line: &str) -> Option<Vec<String>> {
    let open = line.find('"')?;
    let (prefix, rest) = line.split_at(open);
    if prefix.trim_start().starts_with("//") || prefix.ends_with(['r', 'b']) {
        return None;
    }
    let close = 1 + Lexer::Str.end_in(&rest[1..])?;
    let (literal, suffix) = (&rest[1..close], &rest[close + 1..]);
    if suffix.contains(['"', '\'', '/']) {
        return None;
    }
    let indent = &line[..line.len() - line.trim_start().len()];
    let next = format!("{indent}    ");
    let mut lines = vec![format!("{prefix}\"")];
    let mut rest = literal;
    loop {
        let room = 100usize.saturating_sub(lines.last().map_or(0, |l| l.chars().count()) + 1);
        if rest.chars().count() + 1 + suffix.chars().count() <= room + 1 {
            let last = lines.last_mut()?;
            last.push_str(rest);
            last.push('"');
            last.push_str(suffix);
            break;
        }
        // After a space the next line's first character is not one (the
        // continuation drops whitespace), as late as fits, else the first.
        let breaks = rest
            .char_indices()
            .filter(|&(i, c)| c == ' ' && rest[i + 1..].starts_with(|c: char| c != ' '))
            .map(|(i, _)| i + 1);
        let fits: Vec<usize> = breaks.collect();
        let at = fits
            .iter()
            .copied()
            .take_while(|&i| rest[..i].chars().count() <= room)
            .last()
            .or_else(|| fits.first().copied())?;
        let last = lines.last_mut()?;
        last.push_str(&rest[..at]);
        last.push('\\');
        lines.push(next.clone());
        rest = &rest[at..];
    }
    (lines.len() > 1).then_some(lines)
}

impl Lexer {
    /// In a plain string: the byte index of the quote that ends it in `s`.
    fn end_in(self, s: &str) -> Option<usize> {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'\\' => i += 1,
                b'"' => return Some(i),
                _ => {}
            }
            i += 1;
        }
        None
    }
}

/// The docs of a tool module's constants.
pub(super) const INPUT_SCHEMA_DOC: &str =
    "The input schema, for the tool's `ToolInfo` (`tools/list` and validation).";

pub(super) const OUTPUT_SCHEMA_DOC: &str =
    "The output schema as `tools/list` gives an object's, for `ToolInfo`; `None`: none declared.";

pub(super) fn valid_doc(prefix: &str) -> String {
    format!(
        "The {prefix} schema's compiled validator, for the tool's `ToolInfo`; `None`: the `jsonschema` crate checks it."
    )
}

/// A tool's doc in the set's trait.
pub(super) fn method_doc(tool: &Tool) -> String {
    let mut doc = format!(
        "`{}` ({}, {}): {}",
        tool.id.value, tool.safety.value, tool.tier.value, tool.description.value
    );
    // The content the spec says the tool returns: `call.add_content` adds it.
    if !tool.content.is_empty() {
        let kinds: Vec<String> = tool.content.iter().map(|c| c.value.label("`")).collect();
        doc.push_str(&format!(
            "\n\nReturns content blocks (`call.add_content`): {}.",
            kinds.join(", ")
        ));
    }
    doc
}

/// The doc of a tool's typed call function.
pub(super) fn call_doc(tool: &Tool) -> String {
    format!(
        "Calls `{}`: its arguments into its `Input`, its `Output` straight to JSON text.",
        tool.id.value
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of the string literal in `code` (`let x = "..";`).
    fn value(code: &str) -> String {
        match syn::parse_str::<syn::Stmt>(code) {
            Ok(syn::Stmt::Local(syn::Local {
                init: Some(init), ..
            })) => match *init.expr {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => s.value(),
                _ => panic!("not a string: {code}"),
            },
            _ => panic!("not a statement: {code}"),
        }
    }

    /// A wrapped literal holds the same text, on lines of at most 100
    /// characters, whatever it holds: escapes, runs of spaces, non-ASCII,
    /// words longer than a line.
    #[test]
    fn a_continued_string_is_the_same_string() {
        let words = [
            "word",
            "a\"quoted\"",
            "back\\slash",
            "é",
            "two  spaces",
            "\n",
            "ツ",
        ];
        for n in 0..300 {
            let text: Vec<&str> = (0..n).map(|i| words[(i * 7 + n) % words.len()]).collect();
            let mut text = text.join(" ");
            if n % 5 == 0 {
                text.push(' ');
            }
            if n % 11 == 0 {
                text.push_str(&"x".repeat(120));
            }
            let lit = proc_macro2::Literal::string(&text);
            let line = format!("        let description = {lit};\n");
            let wrapped = wrap_long_lines(&line);
            assert_eq!(value(wrapped.trim()), text, "{wrapped}");
            if line.len() > 101 && text.contains(' ') && !text.contains("xxxxxxxxxx") {
                assert!(
                    wrapped.lines().all(|l| l.chars().count() <= 100),
                    "{wrapped}"
                );
            }
        }
    }

    /// Lines inside raw strings (the schemas) and lines with two literals
    /// are left as they are.
    #[test]
    fn only_lone_plain_literals_are_continued() {
        let long = "word ".repeat(30);
        for text in [
            format!("const S: &str = r#\"\n    \"{long}\",\n\"#;\n"),
            format!("const S: &str = r##\"\n\"#\n    \"{long}\",\n\"##;\n"),
            format!("    f(\"{long}\", \"b\");\n"),
            format!("    // \"{long}\"\n"),
        ] {
            assert_eq!(wrap_long_lines(&text), text);
        }
        let after = format!("const S: &str = r#\"x\"#;\nlet c = '\"';\nlet x = \"{long}\";\n");
        assert_ne!(wrap_long_lines(&after), after);
    }
}
