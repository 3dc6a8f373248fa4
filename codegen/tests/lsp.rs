//! `toolgen lsp` driven over stdio by a client in the test, as an editor
//! drives it: a tool set of each format opened, edited to a mistake and
//! back, the diagnostics checked against `toolgen validate`'s position for
//! position, and every request an editor makes; then input meant to break
//! it (invalid UTF-8, a 10 MiB file, a spec typed a character at a time, a
//! file deleted while open).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(20);

struct Client {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
    /// The diagnostics last published, by URI.
    diagnostics: HashMap<String, Vec<Value>>,
    versions: HashMap<String, i64>,
}

impl Client {
    fn start(root: &Path) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolgen"))
            .arg("lsp")
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run toolgen lsp: {e}"));
        let stdin = child.stdin.take().unwrap_or_else(|| panic!("no stdin"));
        let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
        let (tx, incoming) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        len = v.parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; len];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                let message = serde_json::from_slice(&body).unwrap_or(Value::Null);
                if tx.send(message).is_err() {
                    return;
                }
            }
        });
        let mut client = Client {
            child,
            stdin,
            incoming,
            next_id: 0,
            diagnostics: HashMap::new(),
            versions: HashMap::new(),
        };
        let init = client.request(
            "initialize",
            json!({"processId": null, "rootUri": uri(root), "capabilities": {}}),
        );
        assert!(
            init["capabilities"]["hoverProvider"] == json!(true),
            "{init}"
        );
        client.notify("initialized", json!({}));
        client
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        let framed = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        let sent = self
            .stdin
            .write_all(framed.as_bytes())
            .and_then(|()| self.stdin.flush());
        assert!(sent.is_ok(), "the server is gone: {sent:?}");
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and returns its result (panics on an error answer).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let answer = self.try_request(method, params);
        assert!(answer.get("error").is_none(), "{method}: {answer}");
        answer["result"].clone()
    }

    fn try_request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + WAIT;
        loop {
            let m = self
                .receive(deadline)
                .unwrap_or_else(|| panic!("no answer to {method}"));
            if m["id"] == json!(id) && m.get("method").is_none() {
                return m;
            }
        }
    }

    /// The next message, with published diagnostics recorded.
    fn receive(&mut self, deadline: Instant) -> Option<Value> {
        let left = deadline.saturating_duration_since(Instant::now());
        let m = match self.incoming.recv_timeout(left) {
            Ok(m) => m,
            Err(RecvTimeoutError::Timeout) => return None,
            Err(RecvTimeoutError::Disconnected) => panic!("the server exited"),
        };
        if m["method"] == "textDocument/publishDiagnostics" {
            let uri = m["params"]["uri"].as_str().unwrap_or_default().to_owned();
            let list = m["params"]["diagnostics"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            self.diagnostics.insert(uri, list);
        }
        Some(m)
    }

    /// Waits until the diagnostics of `path` satisfy `done`.
    #[track_caller]
    fn diagnostics_until(&mut self, path: &Path, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let key = uri(path);
        let deadline = Instant::now() + WAIT;
        loop {
            let now = self.diagnostics.get(&key).cloned().unwrap_or_default();
            if done(&now) {
                return now;
            }
            if self.receive(deadline).is_none() {
                panic!("diagnostics of {key} never settled; last: {now:?}");
            }
        }
    }

    fn open(&mut self, path: &Path, text: &str) {
        self.versions.insert(uri(path), 1);
        let doc = json!({"uri": uri(path), "languageId": "json", "version": 1, "text": text});
        self.notify("textDocument/didOpen", json!({"textDocument": doc}));
    }

    /// Replaces the document's text.
    fn change(&mut self, path: &Path, text: &str) {
        self.edit(path, json!([{"text": text}]));
    }

    fn edit(&mut self, path: &Path, changes: Value) {
        let version = self.versions.entry(uri(path)).or_insert(1);
        *version += 1;
        let doc = json!({"uri": uri(path), "version": *version});
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": doc, "contentChanges": changes}),
        );
    }

    fn at(&mut self, method: &str, path: &Path, text: &str, needle: &str, delta: usize) -> Value {
        let position = position(text, find(text, needle) + delta);
        self.request(
            method,
            json!({"textDocument": {"uri": uri(path)}, "position": position}),
        )
    }

    fn stop(mut self) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + WAIT;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                assert!(status.success(), "toolgen lsp exited with {status}");
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        panic!("toolgen lsp did not exit");
    }
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn find(text: &str, needle: &str) -> usize {
    text.find(needle)
        .unwrap_or_else(|| panic!("`{needle}` not in the text"))
}

/// The LSP position of byte `offset` (UTF-16 units).
fn position(text: &str, offset: usize) -> Value {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let character: usize = before[start..].chars().map(char::len_utf16).sum();
    json!({"line": line, "character": character})
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("toolgen-lsp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{e}"));
    // Canonical: the server reports the paths it finds.
    d.canonicalize().unwrap_or(d)
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{e}"));
    for entry in std::fs::read_dir(from)
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
    {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `toolgen validate --message-format json`'s diagnostics of `file` in the
/// tool set at `dir`, as LSP ranges: `(code, range, severity, message)`.
fn validate(dir: &Path, file: &Path) -> Vec<(String, Value, i64, String)> {
    let out = Command::new(env!("CARGO_BIN_EXE_toolgen"))
        .args(["--message-format", "json", "validate", "."])
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = read(file);
    let mut found = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let d: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        let severity = match d["severity"].as_str() {
            Some("error") => 1,
            Some("warning") => 2,
            _ => 3,
        };
        let code = d["code"].as_str().unwrap_or_default().to_owned();
        let message = d["message"].as_str().unwrap_or_default();
        let message = message.lines().next().unwrap_or_default().to_owned();
        // The diagnostic where it is, and where its related places are in
        // another file: the server shows it there too.
        let mut places = vec![(d["location"].clone(), message.clone())];
        for r in d["related"].as_array().into_iter().flatten() {
            if r["file"] != d["location"]["file"] {
                places.push((
                    r.clone(),
                    format!("{message} ({})", r["message"].as_str().unwrap_or("")),
                ));
            }
        }
        for (loc, message) in places {
            if dir.join(loc["file"].as_str().unwrap_or_default()) != file {
                continue;
            }
            let (start, end) = (loc["byteStart"].as_u64(), loc["byteEnd"].as_u64());
            let (start, end) = (start.unwrap_or(0) as usize, end.unwrap_or(0) as usize);
            let range = json!({"start": position(&text, start), "end": position(&text, end)});
            found.push((code.clone(), range, severity, message));
        }
    }
    found.sort_by_key(|f| f.1.to_string());
    found
}

/// The server's diagnostics in the same shape as [`validate`]'s.
fn shaped(diagnostics: &[Value]) -> Vec<(String, Value, i64, String)> {
    let mut out: Vec<_> = (diagnostics.iter())
        .map(|d| {
            let message = d["message"].as_str().unwrap_or_default();
            let first = message.lines().next().unwrap_or_default().to_owned();
            let code = d["code"].as_str().unwrap_or_default().to_owned();
            (
                code,
                d["range"].clone(),
                d["severity"].as_i64().unwrap_or(0),
                first,
            )
        })
        .collect();
    out.sort_by_key(|f| f.1.to_string());
    out
}

/// Applies a code action's edits to `text` (one edit, as toolgen's are).
fn apply(text: &str, action: &Value, path: &Path) -> String {
    let edits = &action["edit"]["changes"][uri(path)];
    let edit = &edits[0];
    let offset = |p: &Value| {
        let line = p["line"].as_u64().unwrap_or(0) as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        let line_text = text[start..].split('\n').next().unwrap_or_default();
        let mut units = 0;
        let want = p["character"].as_u64().unwrap_or(0) as usize;
        let mut at = line_text.len();
        for (i, c) in line_text.char_indices() {
            if units >= want {
                at = i;
                break;
            }
            units += c.len_utf16();
        }
        start + at
    };
    let (start, end) = (
        offset(&edit["range"]["start"]),
        offset(&edit["range"]["end"]),
    );
    format!(
        "{}{}{}",
        &text[..start],
        edit["newText"].as_str().unwrap_or_default(),
        &text[end..]
    )
}

/// One format's round: open a spec, make `mistake`, check the server's
/// diagnostics against `toolgen validate`'s, fix it with the quick fix, and
/// see the diagnostics go.
struct Round<'a> {
    set: &'a str,
    file: &'a str,
    /// `(from, to)`: the edit that makes the mistake.
    mistake: (&'a str, &'a str),
    code: &'a str,
    /// Where to hover, complete and go to definition: a needle in the
    /// mistaken text, the offset into it, and the completion that fixes it.
    at: (&'a str, usize, &'a str),
}

fn round(r: Round) {
    let root = scratch(r.set);
    copy_tree(&repo().join("tool-specs").join(r.set), &root.join(r.set));
    let file = root.join(r.set).join(r.file);
    let good = read(&file);
    let bad = good.replacen(r.mistake.0, r.mistake.1, 1);
    assert_ne!(good, bad, "the mistake changes the text");
    let mut c = Client::start(&root);
    c.open(&file, &good);
    c.change(&file, &bad);
    let got = c.diagnostics_until(&file, |d| d.iter().any(|d| d["code"] == r.code));
    // The same text, validated from the command line.
    let check = scratch(&format!("{}-validate", r.set));
    copy_tree(&root.join(r.set), &check);
    std::fs::write(check.join(r.file), &bad).unwrap_or_else(|e| panic!("{e}"));
    let want = validate(&check, &check.join(r.file));
    assert_eq!(
        shaped(&got),
        want,
        "the server's diagnostics are toolgen validate's"
    );
    let d = got
        .iter()
        .find(|d| d["code"] == r.code)
        .cloned()
        .unwrap_or_default();
    let href = d["codeDescription"]["href"].as_str().unwrap_or_default();
    assert!(href.ends_with(&r.code.to_ascii_lowercase()), "{d}");

    // Hover names the rule; completion offers the right word.
    let (needle, delta, word) = r.at;
    let hover = c.at("textDocument/hover", &file, &bad, needle, delta);
    let hover_text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(hover_text.contains(r.code), "hover: {hover}");
    let items = c.at("textDocument/completion", &file, &bad, needle, delta);
    let labels: Vec<&str> = (items.as_array().into_iter().flatten())
        .filter_map(|i| i["label"].as_str())
        .collect();
    assert!(
        labels.contains(&word),
        "completion {labels:?} offers `{word}`"
    );

    // The quick fix makes the text good again.
    let range = d["range"].clone();
    let context = json!({"diagnostics": [d]});
    let params = json!({"textDocument": {"uri": uri(&file)}, "range": range, "context": context});
    let actions = c.request("textDocument/codeAction", params);
    let action = &actions[0];
    assert_eq!(action["kind"], "quickfix", "{actions}");
    let fixed = apply(&bad, action, &file);
    assert_eq!(
        fixed, good,
        "the quick fix `{}` undoes the mistake",
        action["title"]
    );
    c.change(&file, &fixed);
    c.diagnostics_until(&file, |d| d.is_empty());

    // Go to definition, on the good text.
    let def = c.at("textDocument/definition", &file, &good, needle, delta);
    let target = def["uri"].as_str().unwrap_or_default();
    assert!(
        target.ends_with("toolset.yaml") || target.ends_with(".schema.json"),
        "{def}"
    );
    c.stop();
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&check);
}

#[test]
fn an_editormcp_category_typo_is_found_and_fixed() {
    round(Round {
        set: "editormcp",
        file: "go.find.json",
        mistake: (
            "\"category\": \"gameobject\"",
            "\"category\": \"gameobjct\"",
        ),
        code: "TG0204",
        at: ("gameobj", 3, "gameobject"),
    });
}

#[test]
fn a_rave_type_typo_is_found_and_fixed() {
    round(Round {
        set: "rave",
        file: "ravedemo-mcp_tool_config_get.yaml",
        mistake: ("category: info", "category: inf"),
        code: "TG0204",
        at: ("category: inf", 11, "info"),
    });
}

#[test]
fn an_mcp_category_typo_is_found_and_fixed() {
    round(Round {
        set: "toolvault",
        file: "calculate_bearing.json",
        mistake: ("\"category\": \"analysis\"", "\"category\": \"analysys\""),
        code: "TG0204",
        at: ("analys", 2, "analysis"),
    });
}

/// Rules over the whole tool set: a duplicate id across files, a category
/// dropped from `toolset.yaml` (reported in files that are not open), rule
/// levels set by the manifest, and `$ref`s into other files.
#[test]
fn tool_set_wide_rules_manifest_levels_and_refs() {
    let root = scratch("set");
    copy_tree(
        &repo().join("tool-specs/toolvault"),
        &root.join("toolvault"),
    );
    let dir = root.join("toolvault");
    let file = dir.join("calculate_bearing.json");
    let manifest = dir.join("toolset.yaml");
    let text = read(&file);
    let mut c = Client::start(&root);
    c.open(&file, &text);

    // `$ref`: definition in the other file, at the definition; hover shows it.
    let def = c.at(
        "textDocument/definition",
        &file,
        &text,
        "$defs/TrackFeature",
        8,
    );
    let target = dir.join("schemas/tools/ConstrainedFeature.schema.json");
    assert_eq!(def["uri"], uri(&target), "{def}");
    let line = def["range"]["start"]["line"].as_u64().unwrap_or(0) as usize;
    let target_line = read(&target)
        .lines()
        .nth(line)
        .unwrap_or_default()
        .to_owned();
    assert!(target_line.contains("\"TrackFeature\""), "{target_line}");
    let hover = c.at("textDocument/hover", &file, &text, "$defs/TrackFeature", 8);
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .contains("```json")
    );
    let items = c.at(
        "textDocument/completion",
        &file,
        &text,
        "$defs/TrackFeature",
        8,
    );
    let labels: Vec<&str> = (items.as_array().into_iter().flatten())
        .filter_map(|i| i["label"].as_str())
        .collect();
    let point = "schemas/tools/ConstrainedFeature.schema.json#/$defs/PointFeature";
    assert!(labels.contains(&point), "{labels:?}");

    // A dangling `$ref`, then a duplicate id across files.
    let dangling = text.replacen("#/$defs/PointFeature", "#/$defs/PointFeatur", 1);
    c.change(&file, &dangling);
    c.diagnostics_until(&file, |d| d.iter().any(|d| d["code"] == "TG0310"));
    let duplicate = text.replacen("\"calculate_bearing\"", "\"delete_annotations\"", 1);
    c.change(&file, &duplicate);
    let got = c.diagnostics_until(&file, |d| d.iter().any(|d| d["code"] == "TG0202"));
    let check = scratch("set-validate");
    copy_tree(&dir, &check);
    std::fs::write(check.join("calculate_bearing.json"), &duplicate)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        shaped(&got),
        validate(&check, &check.join("calculate_bearing.json"))
    );
    c.change(&file, &text);
    c.diagnostics_until(&file, |d| d.is_empty());

    // The manifest: a category renamed there is wrong in every file using it.
    let yaml = read(&manifest);
    c.open(&manifest, &yaml);
    let renamed = yaml.replacen("- id: analysis", "- id: analytics", 1);
    c.change(&manifest, &renamed);
    let other = dir.join("summarize_collection.json");
    c.diagnostics_until(&other, |d| d.iter().any(|d| d["code"] == "TG0204"));
    c.change(&manifest, &yaml);
    c.diagnostics_until(&other, |d| d.is_empty());

    // A warning, then the manifest's `lints` making it an error.
    let extra = text.replacen("\"title\":", "\"colour\": \"red\",\n  \"title\":", 1);
    c.change(&file, &extra);
    let warned = c.diagnostics_until(&file, |d| d.iter().any(|d| d["code"] == "TG0106"));
    assert!(warned.iter().all(|d| d["severity"] == 2), "{warned:?}");
    let denied = format!("{yaml}lints:\n  passthrough-field: deny\n");
    c.change(&manifest, &denied);
    c.diagnostics_until(&file, |d| {
        d.iter()
            .any(|d| d["code"] == "TG0106" && d["severity"] == 1)
    });

    // Completion in the manifest: rule codes in `lints`, levels as values.
    let partial = format!("{yaml}lints:\n  TG06");
    c.change(&manifest, &partial);
    let items = c.at("textDocument/completion", &manifest, &partial, "  TG06", 6);
    let labels: Vec<&str> = (items.as_array().into_iter().flatten())
        .filter_map(|i| i["label"].as_str())
        .collect();
    assert!(labels.contains(&"TG0603"), "{labels:?}");
    let level = format!("{yaml}lints:\n  TG0603: ");
    c.change(&manifest, &level);
    let items = c.at("textDocument/completion", &manifest, &level, "TG0603: ", 8);
    let labels: Vec<&str> = (items.as_array().into_iter().flatten())
        .filter_map(|i| i["label"].as_str())
        .collect();
    assert_eq!(labels, ["allow", "warn", "deny"]);
    // Hover on a rule in `lints` explains it.
    let hover = c.at("textDocument/hover", &manifest, &level, "TG0603", 2);
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .contains("float-for-integer")
    );

    // Formatting: a spec on one line comes back laid out, the same JSON.
    let value: Value = serde_json::from_str(&text).unwrap_or_default();
    let compact = value.to_string();
    c.change(&file, &compact);
    let options = json!({"tabSize": 2, "insertSpaces": true});
    let params = json!({"textDocument": {"uri": uri(&file)}, "options": options});
    let edits = c.request("textDocument/formatting", params.clone());
    let formatted = edits[0]["newText"].as_str().unwrap_or_default().to_owned();
    assert_eq!(serde_json::from_str::<Value>(&formatted).ok(), Some(value));
    assert!(
        formatted.starts_with("{\n  \"_meta\": {\n    \""),
        "{formatted}"
    );
    c.change(&file, &formatted);
    assert_eq!(
        c.request("textDocument/formatting", params),
        Value::Null,
        "formatted already"
    );
    c.stop();
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&check);
}

/// Input meant to break the server: it answers on, and says what is wrong.
#[test]
fn bad_input_never_kills_the_server() {
    let root = scratch("bad");
    copy_tree(
        &repo().join("tool-specs/editormcp"),
        &root.join("editormcp"),
    );
    let dir = root.join("editormcp");
    // A spec that is not UTF-8, on disk and never opened.
    let latin1 = dir.join("latin1.json");
    std::fs::write(&latin1, b"{\"id\": \"caf\xe9\"}").unwrap_or_else(|e| panic!("{e}"));
    let mut c = Client::start(&root);
    let hover = json!({"textDocument": {"uri": uri(&dir.join("go.find.json"))},
        "position": {"line": 0, "character": 0}});
    c.request("textDocument/hover", hover);
    let d = c.diagnostics_until(&latin1, |d| !d.is_empty());
    assert!(
        d[0]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("UTF-8"),
        "{d:?}"
    );

    // A spec typed a character at a time, each keystroke a change; the
    // editor asks for completion as it goes.
    let typed = dir.join("typed.json");
    let text = read(&dir.join("go.find.json")).replacen("\"go.find\"", "\"go.typed\"", 1);
    c.open(&typed, "");
    let mut so_far = String::new();
    for (i, ch) in text.chars().enumerate() {
        let at = position(&so_far, so_far.len());
        so_far.push(ch);
        c.edit(
            &typed,
            json!([{"range": {"start": at, "end": at}, "text": ch.to_string()}]),
        );
        if i % 40 == 0 {
            let end = position(&so_far, so_far.len());
            let params = json!({"textDocument": {"uri": uri(&typed)}, "position": end});
            c.request("textDocument/completion", params.clone());
            c.request("textDocument/hover", params);
        }
        if i == 100 {
            // Half a spec is a syntax error, located.
            c.diagnostics_until(&typed, |d| d.iter().any(|d| d["severity"] == 1));
        }
    }
    assert_eq!(so_far, text);
    c.diagnostics_until(&typed, |d| d.is_empty());

    // A 10 MiB document, and one just over the limit.
    let big = dir.join("big.json");
    let filler = "x".repeat(10 * 1024 * 1024 - 200);
    let huge = text.replacen("\"go.find\"", "\"go.big\"", 1).replacen(
        "\"description\": \"",
        &format!("\"description\": \"{filler}"),
        1,
    );
    c.open(&big, &huge);
    let end = position(&huge, huge.len());
    let params = json!({"textDocument": {"uri": uri(&big)}, "position": end});
    c.request("textDocument/completion", params);
    c.diagnostics_until(&big, |d| d.iter().any(|d| d["code"] == "TG0002"));
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri(&big)}}),
    );

    // A file deleted while open, edited on, then closed.
    let doomed = dir.join("asset.info.json");
    let doomed_text = read(&doomed);
    c.open(&doomed, &doomed_text);
    let broken = doomed_text.replacen("\"category\": \"asset\"", "\"category\": \"assets\"", 1);
    c.change(&doomed, &broken);
    c.diagnostics_until(&doomed, |d| !d.is_empty());
    std::fs::remove_file(&doomed).unwrap_or_else(|e| panic!("{e}"));
    let deleted = json!({"changes": [{"uri": uri(&doomed), "type": 3}]});
    c.notify("workspace/didChangeWatchedFiles", deleted);
    c.change(&doomed, "{\"id\": ");
    c.at("textDocument/hover", &doomed, "{\"id\": ", "id", 1);
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri(&doomed)}}),
    );
    c.diagnostics_until(&doomed, |d| d.is_empty());

    // Requests about nothing, or about nowhere.
    let nowhere = json!({"textDocument": {"uri": "file:///no/such/file.json"},
        "position": {"line": 4_000_000, "character": 9}});
    assert_eq!(c.request("textDocument/hover", nowhere), Value::Null);
    let past = json!({"textDocument": {"uri": uri(&typed)},
        "position": {"line": 4_000_000, "character": 4_000_000}});
    c.request("textDocument/completion", past.clone());
    c.request("textDocument/definition", past);
    let odd = c.try_request("textDocument/hover", json!({"textDocument": 7}));
    assert!(odd.get("error").is_some(), "{odd}");
    let unknown = c.try_request("toolgen/nothing", json!({}));
    assert!(unknown.get("error").is_some(), "{unknown}");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": 5}, "contentChanges": 1}),
    );
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&typed)}}),
    );

    // A JSON file outside every tool set that is no spec: not toolgen's.
    let package = root.join("package.json");
    let text = "{\"name\": \"web\", \"";
    c.open(&package, text);
    let items = c.at("textDocument/completion", &package, text, "\"", 1);
    assert_eq!(
        items,
        json!([]),
        "no completion in a file that is not a spec"
    );
    std::thread::sleep(Duration::from_millis(200));
    let start = json!({"line": 0, "character": 0});
    c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(&package)}, "position": start}),
    );
    assert!(
        !c.diagnostics.contains_key(&uri(&package)),
        "{:?}",
        c.diagnostics
    );
    c.stop();
    let _ = std::fs::remove_dir_all(&root);
}

/// Applies the first quick fix the server offers for the diagnostic with
/// `code` in `text` (open as `path`), and returns the new text.
fn quick_fix(c: &mut Client, path: &Path, text: &str, code: &str) -> (String, String) {
    c.change(path, text);
    let got = c.diagnostics_until(path, |d| d.iter().any(|d| d["code"] == code));
    let d = got
        .iter()
        .find(|d| d["code"] == code)
        .cloned()
        .unwrap_or_default();
    let context = json!({"diagnostics": [d.clone()]});
    let params =
        json!({"textDocument": {"uri": uri(path)}, "range": d["range"], "context": context});
    let actions = c.request("textDocument/codeAction", params);
    let action = &actions[0];
    let title = action["title"].as_str().unwrap_or_default().to_owned();
    (apply(text, action, path), title)
}

/// Every kind of fix a diagnostic suggests, applied: "did you mean" for a
/// key, the id for a tier's title, a missing required field in JSON and in
/// YAML.
#[test]
fn quick_fixes_of_every_kind() {
    let root = scratch("fixes");
    copy_tree(
        &repo().join("tool-specs/editormcp"),
        &root.join("editormcp"),
    );
    copy_tree(&repo().join("tool-specs/rave"), &root.join("rave"));
    let json_spec = root.join("editormcp/go.find.json");
    let good = read(&json_spec);
    let mut c = Client::start(&root);
    c.open(&json_spec, &good);

    let typo = good.replacen("\"safetyLevel\":", "\"safteyLevel\":", 1);
    let (fixed, title) = quick_fix(&mut c, &json_spec, &typo, "TG0104");
    assert_eq!(
        (fixed.as_str(), title.as_str()),
        (good.as_str(), "Replace with `safetyLevel`")
    );

    let titled = good.replacen("\"tier\": \"core\"", "\"tier\": \"Core\"", 1);
    let (fixed, title) = quick_fix(&mut c, &json_spec, &titled, "TG0208");
    assert_eq!(
        (fixed.as_str(), title.as_str()),
        (good.as_str(), "Replace with `core`")
    );

    let line = good
        .lines()
        .find(|l| l.contains("\"name\":"))
        .unwrap_or_default();
    let nameless = good.replacen(&format!("{line}\n"), "", 1);
    let (fixed, title) = quick_fix(&mut c, &json_spec, &nameless, "TG0101");
    assert_eq!(title, "Add `name`");
    let value: Value = serde_json::from_str(&fixed).unwrap_or_default();
    assert_eq!(value["name"], "", "{fixed}");
    c.change(&json_spec, &fixed);
    c.diagnostics_until(&json_spec, |d| d.iter().all(|d| d["code"] != "TG0101"));

    let yaml_spec = root.join("rave/ravedemo-mcp_tool_subject_list.yaml");
    let yaml = read(&yaml_spec);
    c.open(&yaml_spec, &yaml);
    let line = yaml
        .lines()
        .find(|l| l.starts_with("description:"))
        .unwrap_or_default();
    let bare = yaml.replacen(&format!("{line}\n"), "", 1);
    let (fixed, title) = quick_fix(&mut c, &yaml_spec, &bare, "TG0101");
    assert_eq!(title, "Add `description`");
    assert!(fixed.contains("\ndescription: ''\n"), "{fixed}");
    c.change(&yaml_spec, &fixed);
    c.diagnostics_until(&yaml_spec, |d| d.iter().all(|d| d["code"] != "TG0101"));
    c.stop();
    let _ = std::fs::remove_dir_all(&root);
}
