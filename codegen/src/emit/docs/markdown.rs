//! Markdown for the docs site, from two kinds of text: names and values,
//! which must show exactly as written ([`md`], [`md_cell`], [`code_block`]),
//! and spec prose (descriptions, notes), which authors write in Markdown and
//! which renders as Markdown, made safe ([`markdown()`], [`markdown_inline`]):
//! no raw HTML (`<` is an entity unless it opens an autolink), no mdBook
//! directives (`{{#include}}`), and headings below the page's own.

/// Inline Markdown text: renders as exactly `s`, whatever it contains.
pub fn md(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '|' | '{' | '}' | '!' | '+' | '-' | '~'
            | '$' | '=' => {
                out.push('\\');
                out.push(c);
            }
            '\r' => {}
            '\u{2028}' | '\u{2029}' | '\u{85}' => out.push('\n'),
            c if c.is_control() && c != '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A table cell: escaped and on one line.
pub fn md_cell(s: &str) -> String {
    md(s)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("<br>")
}

/// `s` in a code span, shown exactly (`<code>` with its text escaped).
pub fn code(s: &str) -> String {
    format!("<code>{}</code>", md_cell(s))
}

/// A fenced code block of `lang` around `code`; mdBook's `{{#` directives are escaped.
pub fn code_block(lang: &str, code: &str) -> String {
    let longest = code.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{lang}\n{}\n{fence}", code.replace("{{#", "\\{{#"))
}

/// The lines of `s` as Markdown reads them (every line terminator a line
/// break, other control characters dropped).
pub fn md_lines(s: &str) -> Vec<String> {
    let normalized: String = s
        .chars()
        .filter(|c| *c != '\r')
        .map(|c| match c {
            '\u{2028}' | '\u{2029}' | '\u{85}' => '\n',
            c if c.is_control() && c != '\n' => ' ',
            c => c,
        })
        .collect();
    normalized.lines().map(str::to_owned).collect()
}

/// One line of spec prose, made safe: `&` and `<` as entities (an autolink
/// `<https://...>` stays), mdBook directives escaped.
fn safe_line(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 8);
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        let autolink = rest.starts_with("<http://") || rest.starts_with("<https://");
        match c {
            '<' if autolink && rest.contains('>') => {
                let end = rest.find('>').unwrap_or(0);
                let url = &rest[1..end];
                if url.contains([' ', '<', '"']) {
                    out.push_str("&lt;");
                } else {
                    out.push_str(&rest[..=end]);
                    rest = &rest[end + 1..];
                    continue;
                }
            }
            '<' => out.push_str("&lt;"),
            '&' => out.push_str("&amp;"),
            '{' if rest.starts_with("{{#") => out.push_str("\\{"),
            c => out.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Spec prose as the Markdown it is written in, made safe; headings sit
/// below the page's own (`#` and `##` become `####`).
pub fn markdown(s: &str) -> String {
    md_lines(s)
        .iter()
        .map(|l| {
            let line = safe_line(l.trim_end());
            let hashes = line.chars().take_while(|c| *c == '#').count();
            if (1..=3).contains(&hashes) && line[hashes..].starts_with(' ') {
                format!("####{}", &line[hashes..])
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Spec prose on one line (a list item, a table cell): Markdown inline, made
/// safe, lines joined with spaces, a line that starts a block (`#`, `>`,
/// `-`, `1.`) kept as text, and `|` escaped.
pub fn markdown_inline(s: &str) -> String {
    md_lines(s)
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            let line = safe_line(l).replace('|', "\\|");
            match line.chars().next() {
                Some('#' | '>' | '+' | '=') => format!("\\{line}"),
                Some('-' | '*') if line[1..].starts_with(' ') => format!("\\{line}"),
                _ => line,
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `1 tool`, `2 tools`.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_values_stay_text() {
        assert_eq!(md("a | b"), "a \\| b");
        assert_eq!(md("<script>"), "&lt;script&gt;");
        assert_eq!(md("{{#include x}}"), "\\{\\{\\#include x\\}\\}");
        assert_eq!(md("# h"), "\\# h");
        assert_eq!(md_cell("a\nb\u{2028}c"), "a<br>b<br>c");
        assert_eq!(code_block("json", "x ``` y"), "````json\nx ``` y\n````");
        assert_eq!(
            code_block("", "{{#include /etc/passwd}}"),
            "```\n\\{{#include /etc/passwd}}\n```"
        );
    }

    #[test]
    fn prose_renders_as_markdown_safely() {
        assert_eq!(
            markdown("**Bold** and `code`\n## When to Use\n- a\n- b"),
            "**Bold** and `code`\n#### When to Use\n- a\n- b"
        );
        assert_eq!(
            markdown("<script>x</script> & <https://x.org> {{#include y}}"),
            "&lt;script>x&lt;/script> &amp; <https://x.org> \\{{#include y}}"
        );
        assert_eq!(markdown_inline("a | b\n# c"), "a \\| b \\# c");
        assert_eq!(markdown_inline("- item\n*x*"), "\\- item *x*");
        assert_eq!(count(1, "tool set", "tool sets"), "1 tool set");
        assert_eq!(count(2, "tool", "tools"), "2 tools");
    }
}
