//! Description markup: the one reading of the prose a spec writes
//! (descriptions, notes), rendered per output. Prose is plain text with
//! `code` spans between paired backticks on a line; an unpaired backtick is
//! text. Rust doc comments take it as written (rustdoc reads Markdown), C#
//! doc comments get `<c>...</c>`, and the docs site `<code>...</code>` with
//! everything else escaped so that it shows exactly as written.

/// A piece of one line of prose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    Text(&'a str),
    Code(&'a str),
}

/// The pieces of one line: paired backticks delimit code spans; a line with
/// an unpaired backtick is text throughout.
pub fn pieces(line: &str) -> Vec<Piece<'_>> {
    let parts: Vec<&str> = line.split('`').collect();
    if parts.len() < 3 || parts.len() % 2 == 0 {
        return vec![Piece::Text(line)];
    }
    parts
        .iter()
        .enumerate()
        .filter(|(i, p)| i % 2 == 1 || !p.is_empty())
        .map(|(i, p)| {
            if i % 2 == 1 {
                Piece::Code(p)
            } else {
                Piece::Text(p)
            }
        })
        .collect()
}

/// One line with each code span wrapped by `open` and `close`; `text` and
/// `code` escape the pieces for the target.
pub fn render_line(
    line: &str,
    text: impl Fn(&str) -> String,
    code: impl Fn(&str) -> String,
    (open, close): (&str, &str),
) -> String {
    pieces(line)
        .into_iter()
        .map(|p| match p {
            Piece::Text(t) => text(t),
            Piece::Code(c) => format!("{open}{}{close}", code(c)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paired_backticks_are_code() {
        assert_eq!(
            pieces("a `b` c `d`"),
            [
                Piece::Text("a "),
                Piece::Code("b"),
                Piece::Text(" c "),
                Piece::Code("d")
            ]
        );
        assert_eq!(pieces("it`s"), [Piece::Text("it`s")]);
        assert_eq!(pieces("`a` `b"), [Piece::Text("`a` `b")]);
        assert_eq!(
            render_line(
                "x `<y>`",
                str::to_owned,
                |c| c.replace('<', "&lt;"),
                ("<c>", "</c>")
            ),
            "x <c>&lt;y></c>"
        );
    }
}
