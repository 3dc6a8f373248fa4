//! The docs emitter: spec text renders as text (no HTML, no template or mdBook
//! directives, no broken tables), and every tool set gets its pages. The
//! generated tree itself (generated/docs) is the golden output, checked for
//! freshness by `generated.rs`; `cargo xtask docs` builds and checks the HTML.

use toolgen_tests::{fixtures, root};

/// Table cells of a Markdown row, split on unescaped `|`.
fn cells(row: &str) -> usize {
    let mut n: usize = 0;
    let mut escaped = false;
    for c in row.chars() {
        match c {
            '\\' if !escaped => escaped = true,
            '|' if !escaped => n += 1,
            _ => escaped = false,
        }
    }
    n.saturating_sub(1)
}

#[test]
fn hostile_spec_text_is_data_not_markup() {
    let dir = root()
        .join("target/docs-tests")
        .join(format!("hostile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let generated = toolgen::Generator::new()
        .input(fixtures().join("csharp-hostile"))
        .out_dir(&dir)
        .generate();
    assert!(
        generated.is_ok(),
        "{:?}",
        generated.err().map(|e| e.to_string())
    );
    let page = std::fs::read_to_string(dir.join("docs/src/hostile/class.string-default.md"))
        .unwrap_or_default();
    assert!(!page.contains("<script>"), "{page}");
    assert!(page.contains("&lt;script&gt;"));
    assert!(!page.contains("{{ template }}") && page.contains("\\{\\{ template \\}\\}"));
    assert!(
        page.contains("\\{\\% raw \\%\\}") || page.contains("\\{% raw %\\}"),
        "{page}"
    );
    assert!(page.contains("\\| \\# heading"));
    // Code spans are code; the text around them stays text.
    assert!(
        page.contains("fourth <code>code</code> \\{\\{ template"),
        "{page}"
    );
    // Every row of the inputs table has the header's number of cells.
    let table: Vec<&str> = page
        .lines()
        .skip_while(|l| !l.starts_with("| name |"))
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert!(table.len() > 3, "{page}");
    for row in &table {
        assert_eq!(cells(row), 7, "row breaks the table: {row}");
    }
    // A title line cannot start a new heading or list.
    assert!(
        page.starts_with("# Nasty \"Name\" &lt;/summary&gt;"),
        "{page}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_tool_of_every_set_has_a_page() {
    let summary =
        std::fs::read_to_string(root().join("generated/docs/src/SUMMARY.md")).unwrap_or_default();
    for set in ["editormcp", "ravedemo", "toolvault"] {
        let catalog: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(root().join(format!("generated/catalog/{set}/tools.json")))
                .unwrap_or_default(),
        )
        .unwrap_or_default();
        let tools = catalog["tools"].as_array().cloned().unwrap_or_default();
        assert!(!tools.is_empty(), "{set}");
        for t in tools {
            let id = t["name"].as_str().unwrap_or("");
            let page = format!("{set}/{id}.md");
            assert!(
                root().join("generated/docs/src").join(&page).is_file(),
                "{page}"
            );
            assert!(
                summary.contains(&format!("]({page})")),
                "SUMMARY links {page}"
            );
        }
    }
    let go = std::fs::read_to_string(root().join("generated/docs/src/editormcp/go.setParent.md"))
        .unwrap_or_default();
    assert!(go.contains("tg-safe-write") && go.contains("This tool changes the project"));
    assert!(go.contains("\"tool\": \"go.setParent\"") && go.contains("\"name\": \"go.setParent\""));
}
