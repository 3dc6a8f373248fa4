//! Rd markup (R's documentation format, which RAVE descriptions may hold) as
//! plain Markdown: macros such as `\code{}` and `\itemize{}` rewritten, unknown ones kept.

/// Rd macros and how many brace arguments they take.
pub(super) fn rd_macro(name: &str) -> Option<usize> {
    Some(match name {
        "item" | "href" | "enc" => 2,
        "code" | "link" | "linkS4class" | "emph" | "strong" | "bold" | "sQuote" | "dQuote"
        | "pkg" | "var" | "env" | "option" | "command" | "file" | "url" | "verb" | "samp"
        | "eqn" | "deqn" | "itemize" | "enumerate" | "describe" | "preformatted" | "dontrun"
        | "donttest" | "value" | "kbd" | "acronym" | "abbr" | "cite" | "dfn" | "email"
        | "special" | "strong.emph" | "method" | "S4method" | "bold.emph" => 1,
        _ => return None,
    })
}

/// Rd markup as the Markdown it means: `\code{x}` -> `` `x` ``,
/// `\link[pkg]{x}` -> `` `pkg::x` ``, `\emph{x}` -> `*x*`, `\strong{x}` ->
/// `**x**`, `\href{u}{t}` -> `[t](u)`, `\url{u}` -> `<u>`, `\itemize` and
/// `\enumerate` -> Markdown lists, `\describe` -> `- **a**: b` items,
/// `\item{a}{b}` -> `a: b`. Unknown macros and escaped braces (`\\{`) are
/// left alone.
pub fn clean_rd(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '\\' && chars.get(i + 1).is_some_and(|c| c.is_ascii_alphabetic()) {
            if let Some((replacement, next)) = rd_macro_at(&chars, i + 1) {
                if replacement.starts_with('\n') {
                    // A list starts on its own line.
                    let kept = out.trim_end_matches(' ').len();
                    out.truncate(kept);
                }
                out.push_str(&replacement);
                i = next;
                if replacement.ends_with('\n') {
                    while chars.get(i) == Some(&' ') {
                        i += 1;
                    }
                }
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out.trim_matches('\n').to_owned()
}

/// The Markdown of the Rd macro whose name starts at `start` (after its
/// backslash), and where the text after it starts; `None` for a macro it
/// does not know or one without its arguments.
pub(super) fn rd_macro_at(chars: &[char], start: usize) -> Option<(String, usize)> {
    let mut j = start;
    while chars
        .get(j)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '.')
    {
        j += 1;
    }
    let name: String = chars[start..j].iter().collect();
    let arity = rd_macro(&name)?;
    // `\link[pkg]{x}`: an option in brackets.
    let mut option = None;
    if chars.get(j) == Some(&'[') {
        let end = chars[j..].iter().position(|c| *c == ']')? + j;
        option = Some(chars[j + 1..end].iter().collect::<String>());
        j = end + 1;
    }
    let mut args = Vec::new();
    while args.len() < arity && chars.get(j) == Some(&'{') {
        let end = matching_brace(chars, j)?;
        args.push(chars[j + 1..end].iter().collect::<String>());
        j = end + 1;
    }
    if args.is_empty() {
        return None;
    }
    let clean = |a: &str| clean_rd(a);
    let text = match (name.as_str(), args.as_slice()) {
        ("itemize", [body]) => format!("\n{}\n", rd_list(body, |_| "- ".to_owned())),
        ("enumerate", [body]) => format!("\n{}\n", rd_list(body, |n| format!("{n}. "))),
        ("describe", [body]) => format!("\n{}\n", rd_describe(body)),
        ("item", [a, b]) => format!("{}: {}", clean(a), clean(b)),
        ("href", [u, t]) => format!("[{}]({})", clean(t), u.trim()),
        ("url", [u]) => format!("<{}>", u.trim()),
        ("code" | "verb" | "samp" | "kbd" | "command" | "file" | "env" | "option" | "var", [a]) => {
            code_span(&clean(a))
        }
        ("link" | "linkS4class", [a]) => code_span(&match option.as_deref() {
            // `\link[pkg]{x}`, `\link[pkg:topic]{x}`: a function of another package.
            Some(o) if !o.starts_with('=') => {
                let pkg = o.split(':').next().unwrap_or(o);
                format!("{pkg}::{}", clean(a))
            }
            _ => clean(a),
        }),
        ("emph" | "dfn" | "cite", [a]) => format!("*{}*", clean(a)),
        ("strong" | "bold", [a]) => format!("**{}**", clean(a)),
        ("strong.emph" | "bold.emph", [a]) => format!("***{}***", clean(a)),
        ("sQuote", [a]) => format!("‘{}’", clean(a)),
        ("dQuote", [a]) => format!("“{}”", clean(a)),
        (_, [a, ..]) => clean(a),
        _ => String::new(),
    };
    Some((text, j))
}

/// A Markdown code span holding `text` (its backticks fenced by more).
pub(super) fn code_span(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// The `\item`s of an Rd list body, one Markdown list line each.
pub(super) fn rd_list(body: &str, marker: impl Fn(usize) -> String) -> String {
    split_items(body)
        .iter()
        .filter(|t| !t.trim().is_empty())
        .enumerate()
        .map(|(n, t)| format!("{}{}", marker(n + 1), clean_rd(t).trim().replace('\n', " ")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `\describe{\item{a}{b} ...}`: `- **a**: b` lines.
pub(super) fn rd_describe(body: &str) -> String {
    let chars: Vec<char> = body.chars().collect();
    let mut lines = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let at_item = chars[i] == '\\' && chars[i + 1..].starts_with(&['i', 't', 'e', 'm', '{']);
        if at_item {
            let mut j = i + 5;
            let mut args = Vec::new();
            while args.len() < 2 && chars.get(j) == Some(&'{') {
                let Some(end) = matching_brace(&chars, j) else {
                    break;
                };
                args.push(chars[j + 1..end].iter().collect::<String>());
                j = end + 1;
            }
            if let [a, b] = args.as_slice() {
                lines.push(format!(
                    "- **{}**: {}",
                    clean_rd(a).trim(),
                    clean_rd(b).trim()
                ));
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    lines.join("\n")
}

/// The texts after each top-level `\item` of a list body.
pub(super) fn split_items(body: &str) -> Vec<String> {
    let chars: Vec<char> = body.chars().collect();
    let mut items: Vec<String> = Vec::new();
    let mut depth = 0usize;
    let mut current: Option<String> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let item = depth == 0
            && c == '\\'
            && chars[i + 1..].starts_with(&['i', 't', 'e', 'm'])
            && !chars
                .get(i + 5)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '{');
        if item {
            if let Some(t) = current.take() {
                items.push(t);
            }
            current = Some(String::new());
            i += 5;
            continue;
        }
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if let Some(t) = current.as_mut() {
            t.push(c);
            if c == '\\' {
                if let Some(next) = chars.get(i + 1) {
                    t.push(*next);
                    i += 1;
                }
            }
        }
        i += 1;
    }
    items.extend(current);
    items
}

pub(super) fn matching_brace(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}
