//! A tool's [`Fragments`] written straight as text: no tokens, no parse,
//! no prettyplease. Each fragment has one fixed shape whose only choices of
//! layout are whether a signature, a call or a `Some(..)` fits on its line,
//! so the text is what prettyplease gives for it, made with a few `push_str`s
//! (see docs/decisions.md for what formatting them costs). Where a line would come near the margin in a way these rules do
//! not cover (very long names), [`fragments`] gives `None` and the caller
//! formats the tokens as before. A test holds the two to the same text over
//! every length around each rule's threshold.

use proc_macro2::Literal;

use super::comments;
use crate::ir::{Tool, ToolSet};

/// The width prettyplease fills (`MARGIN` there), in bytes as it counts.
const MARGIN: usize = 89;

/// The fragments of `tool` (its module `module`, its set's trait
/// `trait_name`); `None` when a line's layout is not one of the known ones.
pub(super) fn fragments(
    set: &ToolSet,
    tool: &Tool,
    module: &str,
    trait_name: &str,
) -> Option<[String; 4]> {
    // A name this long could break a line these rules keep whole.
    if module.len() > 40 || trait_name.len() > 40 {
        return None;
    }
    let id = Literal::string(&tool.id.value).to_string();
    Some([
        method(tool, module)?,
        entry(set, tool, module)?,
        call(tool, module, trait_name, &id)?,
        arm(module, &id)?,
    ])
}

/// `text` as `///` lines at `indent`, as `items::doc` makes its attributes
/// and prettyplease prints them. `None` for a carriage return (prettyplease
/// would keep it raw inside a line).
fn doc_lines(out: &mut String, indent: &str, text: &str) -> Option<()> {
    if text.contains('\r') {
        return None;
    }
    for line in comments::doc_values(text) {
        out.push_str(indent);
        out.push_str("///");
        out.push_str(line.trim_end_matches(' '));
        out.push('\n');
    }
    Some(())
}

/// Pushes `line` and a line end; false when it is wider than the margin.
fn push_line(out: &mut String, line: &str) -> bool {
    out.push_str(line);
    out.push('\n');
    line.len() <= MARGIN
}

/// The trait's method, at the trait's indent.
fn method(tool: &Tool, m: &str) -> Option<String> {
    let mut out = String::new();
    doc_lines(&mut out, "    ", &comments::method_doc(tool))?;
    let one = format!(
        "    fn {m}(&self, call: &mut Call, input: {m}::Input) -> Result<{m}::Output, ToolError>;"
    );
    if one.len() <= MARGIN {
        push_line(&mut out, &one);
    } else {
        out.push_str(&format!("    fn {m}(\n"));
        out.push_str("        &self,\n        call: &mut Call,\n");
        out.push_str(&format!("        input: {m}::Input,\n"));
        if !push_line(
            &mut out,
            &format!("    ) -> Result<{m}::Output, ToolError>;"),
        ) {
            return None;
        }
    }
    Some(out)
}

/// The table's entry, at the table's indent.
fn entry(set: &ToolSet, tool: &Tool, m: &str) -> Option<String> {
    let lit = |s: &str| Literal::string(s).to_string();
    let listed = raw_json(&super::super::catalog::ToolEntry::new(set, tool).slots())?;
    let timeout = match set.timeout_of(tool) {
        Some(t) => format!("Some({})", Literal::f64_unsuffixed(t)),
        None => "None".to_owned(),
    };
    let mut out = String::from("    ToolInfo {\n");
    let mut field = |name: &str, value: &str| {
        out.push_str("        ");
        out.push_str(name);
        out.push_str(": ");
        out.push_str(value);
        out.push_str(",\n");
    };
    field("id", &lit(&tool.id.value));
    field("name", &lit(&tool.name.value));
    field("description", &lit(tool.description_for_model()));
    field("category", &lit(&tool.category.value));
    field("safety_level", &lit(tool.safety.value.as_str()));
    field("tier", &lit(&tool.tier.value));
    // `timeout_seconds: Some(..),`: a number's literal, never near the margin.
    if timeout.len() > 40 {
        return None;
    }
    field("timeout_seconds", &timeout);
    field("requires_approval", bool_text(tool.requires_approval));
    match &tool.notes {
        None => field("notes", "None"),
        Some(n) => {
            let n = lit(&n.value);
            // `        notes: Some(` .. `),`: on one line when it fits.
            if 8 + "notes: Some(".len() + n.len() + "),".len() <= MARGIN {
                field("notes", &format!("Some({n})"));
            } else {
                field("notes", &format!("Some(\n            {n},\n        )"));
            }
        }
    }
    field("input_schema", &format!("{m}::INPUT_SCHEMA"));
    field("output_schema", &format!("{m}::OUTPUT_SCHEMA"));
    field("entry", &listed);
    field(
        "serial",
        bool_text(set.execution == crate::ir::Execution::Serial),
    );
    field("input_valid", &format!("{m}::INPUT_VALID"));
    field("output_valid", &format!("{m}::OUTPUT_VALID"));
    out.push_str("    },\n");
    Some(out)
}

fn bool_text(b: bool) -> &'static str {
    if b { "true" } else { "false" }
}

/// JSON as the raw string literal `items::json_literal` makes (pretty, with
/// enough `#`s); `None` where that one would fall back to an escaped string.
fn raw_json(v: &impl serde::Serialize) -> Option<String> {
    raw_string(&serde_json::to_string_pretty(v).ok()?)
}

/// `text` as a raw string literal: enough `#`s that no `"#..#` inside it
/// ends the literal. `None` for a carriage return, which a raw string
/// cannot hold (serde_json escapes them).
pub(super) fn raw_string(text: &str) -> Option<String> {
    if text.contains('\r') {
        return None;
    }
    let longest = text
        .split('"')
        .skip(1)
        .map(|after| after.chars().take_while(|c| *c == '#').count())
        .max()
        .unwrap_or(0);
    let hashes = "#".repeat(longest + 1);
    Some(format!("r{hashes}\"{text}\"{hashes}"))
}

/// A tool module's constants (its schemas, which compiled validators it
/// has: `valid`, input and output), as `items::constants` gives them
/// formatted. `None` where a schema is not written as a raw string.
pub(super) fn constants(tool: &Tool, valid: &[bool; 2]) -> Option<String> {
    let input = raw_json(&tool.input.ordered(&tool.input.value))?;
    let mut out = String::new();
    doc_lines(&mut out, "", comments::INPUT_SCHEMA_DOC)?;
    out.push_str(&format!("pub const INPUT_SCHEMA: &str = {input};\n"));
    doc_lines(&mut out, "", comments::OUTPUT_SCHEMA_DOC)?;
    let head = "pub const OUTPUT_SCHEMA: Option<&str> = ";
    if let Some(output) = super::super::catalog::TableOutput::of(tool) {
        let output = raw_json(&output)?;
        // prettyplease counts a literal's whole length, line ends and all.
        if head.len() + "Some(".len() + output.len() + ");".len() <= MARGIN {
            out.push_str(&format!("{head}Some({output});\n"));
        } else {
            out.push_str(&format!("{head}Some(\n    {output},\n);\n"));
        }
    } else {
        out.push_str(&format!("{head}None;\n"));
    }
    for (prefix, valid) in ["input", "output"].into_iter().zip(valid) {
        doc_lines(&mut out, "", &comments::valid_doc(prefix))?;
        let head = format!(
            "pub const {}_VALID: Option<::toolgen_runtime::server::Validity> = ",
            prefix.to_uppercase()
        );
        // `Some(input_is_valid);` does not fit after the type; `None;` does.
        if *valid {
            out.push_str(&format!("{head}Some(\n    {prefix}_is_valid,\n);\n"));
        } else {
            out.push_str(&format!("{head}None;\n"));
        }
    }
    Some(out)
}

/// The typed call function, at the top level.
fn call(tool: &Tool, m: &str, trait_name: &str, id: &str) -> Option<String> {
    let mut out = String::new();
    doc_lines(&mut out, "", &comments::call_doc(tool))?;
    let name = call_name(m);
    // The signature never fits on one line (its fixed parts alone do not).
    let first = format!("fn {name}<T: {trait_name} + ?Sized>(");
    if !push_line(&mut out, &first) {
        return None;
    }
    out.push_str("    tools: &T,\n    call: Call,\n    arguments: Arguments<'_>,\n");
    out.push_str(") -> Result<ToolOutput, ToolError> {\n");
    let closure = format!("|call, input| tools.{m}(call, input)");
    let one = format!("    typed_call({id}, call, arguments, {closure})");
    if one.len() <= MARGIN {
        push_line(&mut out, &one);
    } else {
        // The id's line has nowhere to break: it may run past the margin.
        out.push_str(&format!("    typed_call(\n        {id},\n"));
        out.push_str("        call,\n        arguments,\n");
        if !push_line(&mut out, &format!("        {closure},")) {
            return None;
        }
        out.push_str("    )\n");
    }
    out.push_str("}\n");
    Some(out)
}

/// `call_<module>`, the module's raw prefix dropped as `format_ident!` does.
fn call_name(m: &str) -> String {
    format!("call_{}", m.strip_prefix("r#").unwrap_or(m))
}

/// The arm of `dispatch`'s `match`, at its indent.
fn arm(m: &str, id: &str) -> Option<String> {
    let call = format!("{}(tools, Call::new(), arguments)", call_name(m));
    let one = format!("        {id} => {call},");
    let mut out = String::new();
    // An arm's comma is not counted: prettyplease writes it only after
    // deciding (a block arm has none).
    if one.len() - 1 <= MARGIN {
        push_line(&mut out, &one);
    } else {
        out.push_str(&format!("        {id} => {{\n"));
        if !push_line(&mut out, &format!("            {call}")) {
            return None;
        }
        out.push_str("        }\n");
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Execution, SafetyLevel, Spanned};

    fn base() -> ToolSet {
        let spec = serde_json::json!({
            "name": "tool",
            "description": "A tool.",
            "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
        });
        crate::load::json_tool_set("written", &[spec])
    }

    /// Texts of every kind these fragments hold: quotes, backslashes,
    /// non-ASCII (prettyplease counts bytes), a newline escaped in a literal
    /// and splitting a doc, `*/`, trailing spaces, `#` after a quote.
    fn text(len: usize, kind: usize) -> String {
        let unit = ["a", "é", "\"", "\\", "x y ", "*/", "\"#", "\n", "ツ", "  "][kind % 10];
        unit.repeat(len.div_ceil(unit.len().max(1)))
            .chars()
            .take(len)
            .collect()
    }

    /// Holds the written fragments to the formatted ones over every length
    /// around each layout's threshold, and checks that writing is what
    /// happens for names of ordinary length (not a test of the fallback).
    #[test]
    fn written_fragments_are_what_prettyplease_gives() {
        let mut set = base();
        let mut tool = set.tools.remove(0);
        let (mut compared, mut written) = (0, 0);
        let mut check = |set: &ToolSet, tool: &Tool, module: &str, expect_written: bool| {
            let trait_name = super::super::items::trait_name_of(set);
            let direct = fragments(set, tool, module, &trait_name)
                .map(|[a, b, c, d]| super::super::items::Fragments::of([&a, &b, &c, &d]));
            let formatted = super::super::items::Fragments::formatted(set, tool, module);
            compared += 1;
            if let Some(d) = &direct {
                written += 1;
                assert_eq!(
                    Some(d),
                    formatted.as_ref(),
                    "module {module:?}, tool {:?}",
                    tool.id.value
                );
            } else {
                assert!(
                    !expect_written,
                    "not written: module {module:?}, tool {:?}",
                    tool.id.value
                );
            }
        };
        // Module names and ids together (the method, the call, the arm).
        for len in 1..=44 {
            let m = "m".repeat(len);
            for id_len in [1, 10, 20, 30, 35, 40, 45, 50, 60] {
                tool.id.value = text(id_len, len);
                let lit = Literal::string(&tool.id.value).to_string();
                check(&set, &tool, &m, len <= 40 && lit.len() <= 70);
            }
        }
        for m in ["r#type", "r#match", "x"] {
            for id_len in 0..=120 {
                tool.id.value = "i".repeat(id_len);
                check(&set, &tool, m, true);
            }
        }
        tool.id.value = "tool".into();
        // Notes of every length around one line's width, of every kind.
        for len in 0..=100 {
            for kind in 0..10 {
                tool.notes = Some(Spanned::new(text(len, kind), tool.loc));
                check(&set, &tool, "tool", true);
            }
        }
        tool.notes = None;
        // Descriptions, names, categories and tiers: one line each whatever
        // their length; docs split at newlines.
        for len in [0, 1, 50, 89, 90, 200] {
            for kind in 0..10 {
                tool.description.value = text(len, kind);
                tool.name.value = text(len, kind + 1);
                tool.category.value = text(len / 2, kind + 2);
                tool.tier.value = text(len / 3, kind + 3);
                check(&set, &tool, "tool", true);
            }
        }
        tool.description.value = "Line one.\r\nline two\rthree".into();
        check(&set, &tool, "tool", false);
        tool.description.value = "A tool.".into();
        // Numbers, flags, safety, execution and set names.
        for t in [
            None,
            Some(12.0),
            Some(0.5),
            Some(1e-7),
            Some(1e21),
            Some(123456.789),
        ] {
            tool.timeout_seconds = t.map(|t| Spanned::new(t, tool.loc));
            for approval in [false, true] {
                tool.requires_approval = approval;
                for safety in [SafetyLevel::ReadOnly, SafetyLevel::Destructive] {
                    tool.safety.value = safety;
                    for execution in [Execution::Concurrent, Execution::Serial] {
                        set.execution = execution;
                        for name in ["s", "mcp", &"n".repeat(33), &"n".repeat(50)] {
                            set.name = name.to_owned();
                            check(&set, &tool, "tool", name.len() <= 33);
                        }
                    }
                }
            }
        }
        assert!(
            written * 10 > compared * 9,
            "{written} of {compared} written"
        );
    }

    /// The same for a tool module's constants: outputs of every length
    /// around `Some(..)`'s line, none, and each pair of validators.
    #[test]
    fn written_constants_are_what_prettyplease_gives() {
        let mut set = base();
        let mut tool = set.tools.remove(0);
        let mut outputs = vec![serde_json::Value::Null, serde_json::json!({})];
        outputs.extend((0..70).map(|n| serde_json::json!({"a": "x".repeat(n)})));
        outputs.push(serde_json::json!({"a": "\"#", "b": "\"##"}));
        for output in outputs {
            *tool.output.value = output;
            for valid in [[false, false], [true, false], [false, true], [true, true]] {
                let written = constants(&tool, &valid);
                let formatted = super::super::items::constants_formatted(&tool, &valid);
                assert_eq!(written.as_ref(), Some(&formatted), "{}", tool.output.value);
            }
        }
    }
}
