//! The generated C# bridge (generated/csharp): compiled with Mono's `mcs`
//! (`-langversion:7.2 -warnaserror+`, XML docs checked) against
//! Newtonsoft.Json, together with test implementations of every EditorMCP
//! handler (tests/csharp/BridgeHost.cs, and `example_handlers` for the tools that
//! only answer with their examples), run under `mono`, and driven end to
//! end from Rust: the runtime's bridge forwarding behind a `Server`, both
//! through the EditorMCP envelope and through standard MCP `tools/call`.
//!
//! `cargo xtask test` installs `mono-mcs`, `mono-runtime` and Newtonsoft.Json
//! (Debian packages) before running the tests; without them these tests fail
//! and say so.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use toolgen_generated::editormcp::{self, TOOLS};
use toolgen_runtime::bridge::{self, Bridge};
use toolgen_runtime::server::{Outbox, Outgoing, Submitted};
use toolgen_runtime::{Server, ServerInfo, Session};
use toolgen_tests::{
    csharp_bridge_sources, files_below, fixtures, newtonsoft_json_dll, root, same_json, which,
};

/// C# features that Mono's `mcs` (C# 7.2) or Unity's Newtonsoft.Json 6 API lack.
const FORBIDDEN: &[(&str, &str)] = &[
    ("#nullable", "nullable reference types (C# 8)"),
    ("record ", "records (C# 9)"),
    (" init;", "init-only setters (C# 9)"),
    ("= new()", "target-typed new (C# 9)"),
    ("new();", "target-typed new (C# 9)"),
    (" switch\n", "switch expressions (C# 8)"),
    (" switch {", "switch expressions (C# 8)"),
    (
        "JsonConverter<",
        "the generic JsonConverter<T> (Newtonsoft.Json 11)",
    ),
    ("??=", "null-coalescing assignment (C# 8)"),
    ("using var ", "using declarations (C# 8)"),
    ("static local", "static local functions (C# 8)"),
];

/// `case T x:` type patterns (C# 7.0 is fine for mcs, but the issue keeps them out) and
/// local functions (a method declared inside a method body).
fn pattern_problems(text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("case ") {
            let words: Vec<&str> = rest.trim_end_matches(':').split_whitespace().collect();
            if words.len() == 2 && !rest.starts_with('"') && !rest.contains('.') {
                problems.push(format!("line {}: type pattern `{t}`", n + 1));
            }
        }
    }
    // A local function: a line ending with `)` followed by `{`, indented deeper than
    // the method level (members of nested classes sit at 12 spaces, their bodies deeper).
    let lines: Vec<&str> = text.lines().collect();
    for w in lines.windows(2) {
        let indent = w[0].len() - w[0].trim_start().len();
        let t = w[0].trim();
        let is_decl = t.ends_with(')')
            && !t.starts_with("if ")
            && !t.starts_with("if(")
            && !t.starts_with("while")
            && !t.starts_with("for")
            && !t.starts_with("foreach")
            && !t.starts_with("using")
            && !t.starts_with("catch")
            && !t.starts_with("switch")
            && !t.starts_with("lock")
            && !t.starts_with("else if")
            && !t.starts_with('[')
            && !t.starts_with(':')
            && !t.starts_with("public ")
            && !t.starts_with("private ")
            && !t.starts_with("internal ")
            && !t.starts_with("protected ")
            && !t.starts_with("static ")
            && !t.starts_with("//")
            && !t.starts_with("///")
            && !t.contains(" = ")
            && !t.contains("return ");
        if is_decl
            && indent >= 16
            && w[1].trim() == "{"
            && t.split('(')
                .next()
                .is_some_and(|h| h.split_whitespace().count() == 2)
        {
            problems.push(format!("local function? `{t}`"));
        }
    }
    problems
}

#[test]
fn generated_csharp_uses_only_the_common_language_subset() {
    let mut files = files_below(&root().join("generated/csharp"), "cs");
    files.extend(csharp_bridge_sources());
    assert!(files.len() > 30, "found {} C# files", files.len());
    let mut problems = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for (needle, what) in FORBIDDEN {
            if text.contains(needle) {
                problems.push(format!("{}: {what} (`{needle}`)", f.display()));
            }
        }
        for p in pattern_problems(&text) {
            problems.push(format!("{}: {p}", f.display()));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    // The scanner itself finds what it looks for.
    assert!(!pattern_problems("switch (x)\n{\n    case Foo f:\n}").is_empty());
    assert!(
        !pattern_problems(
            "                int Twice(int x)\n                {\n                    return 2 * x;\n"
        )
        .is_empty()
    );
}

struct Mono {
    mcs: PathBuf,
    mono: PathBuf,
    newtonsoft: PathBuf,
}

fn mono() -> Mono {
    let hint = "install them with `apt-get install -y mono-mcs mono-runtime libnewtonsoft-json-cil-dev`, or run the tests with `cargo xtask test`, which does";
    let mcs = which("mcs")
        .unwrap_or_else(|| panic!("`mcs` (Mono's C# compiler) is not installed: {hint}"));
    let mono = which("mono").unwrap_or_else(|| panic!("`mono` is not installed: {hint}"));
    let newtonsoft = newtonsoft_json_dll().unwrap_or_else(|| {
        panic!("Newtonsoft.Json.dll not found (set TOOLGEN_NEWTONSOFT_JSON): {hint}")
    });
    Mono {
        mcs,
        mono,
        newtonsoft,
    }
}

/// Compiles `sources` into `out` (an `.exe` or, with `library`, a `.dll`); panics with mcs's output.
fn compile(m: &Mono, sources: &[PathBuf], out: &Path, library: bool) {
    compile_with(m, sources, out, library, &[]);
}

fn compile_with(m: &Mono, sources: &[PathBuf], out: &Path, library: bool, extra: &[&str]) {
    let dir = out.parent().unwrap_or(Path::new("."));
    let _ = std::fs::create_dir_all(dir);
    let _ = std::fs::copy(&m.newtonsoft, dir.join("Newtonsoft.Json.dll"));
    let mut cmd = Command::new(&m.mcs);
    cmd.arg("-langversion:7.2")
        .arg("-warnaserror+")
        .arg("-nowarn:1591")
        .arg(format!("-doc:{}", out.with_extension("xml").display()))
        .arg(format!("-r:{}", dir.join("Newtonsoft.Json.dll").display()))
        .arg("-r:System.Runtime.Serialization.dll")
        .arg(format!("-out:{}", out.display()));
    if library {
        cmd.arg("-target:library");
    }
    cmd.args(extra);
    cmd.args(sources);
    let output = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run mcs: {e}"));
    assert!(
        output.status.success(),
        "mcs failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn work_dir(name: &str) -> PathBuf {
    let d = root()
        .join("target/csharp-tests")
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let _ = std::fs::create_dir_all(&d);
    d
}

#[test]
fn hostile_spec_text_compiles_and_stays_text() {
    let m = mono();
    let dir = work_dir("hostile");
    let generated = toolgen::Generator::new()
        .input(fixtures().join("csharp-hostile"))
        .out_dir(dir.join("out"))
        .generate();
    assert!(
        generated.is_ok(),
        "{:?}",
        generated.err().map(|e| e.to_string())
    );
    // The bridge package is written beside the generated one by default.
    let mut sources = files_below(&dir.join("out/csharp"), "cs");
    sources.extend(files_below(&dir.join("out/csharp-bridge"), "cs"));
    compile(&m, &sources, &dir.join("hostile.dll"), true);
    let tool = std::fs::read_to_string(dir.join("out/csharp/hostile/ClassStringDefault.cs"))
        .unwrap_or_default();
    // Line separators in the description start new `///` lines, never code.
    assert!(
        tool.contains("    /// public class Injected {}\n"),
        "{tool}"
    );
    assert!(tool.contains("&lt;/summary&gt;&lt;script&gt;"));
    assert!(tool.contains("[EnumMember(Value = \"a\\\"b\")]"));
    assert!(tool.contains("[JsonProperty(\"\\u00FCber \\\"quoted\\\"\""));
    // The wire names survive a round trip through the compiled DTOs: checked by the
    // XML documentation file too (mcs wrote it without a warning).
    let xml = std::fs::read_to_string(dir.join("hostile.xml")).unwrap_or_default();
    assert!(xml.contains("Injected"), "doc file written");
    let _ = std::fs::remove_dir_all(&dir);
}

/// README.md's C# under "The Unity side" (a handler, then the bridge's start-up) compiles
/// against the generated package as it is written there.
#[test]
fn the_readme_csharp_compiles() {
    let m = mono();
    let dir = work_dir("readme");
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap_or_default();
    let section = readme
        .split("## The Unity side")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .unwrap_or_else(|| panic!("README.md has no \"The Unity side\" section"));
    let blocks: Vec<&str> = section
        .split("```csharp\n")
        .skip(1)
        .filter_map(|rest| rest.split("```").next())
        .collect();
    assert_eq!(blocks.len(), 2, "a handler and the start-up: {blocks:?}");
    let snippet = format!(
        "using System.Collections.Generic;\nusing EditorMcp.Core;\nusing Toolgen.Bridge;\n\nnamespace Readme\n{{\n{}\n    public static class StartUp\n    {{\n        public static void Start()\n        {{\n{}\n        }}\n    }}\n}}\n",
        blocks[0], blocks[1]
    );
    let path = dir.join("Readme.cs");
    let _ = std::fs::write(&path, snippet);
    let mut sources = files_below(&root().join("generated/csharp"), "cs");
    sources.extend(csharp_bridge_sources());
    sources.push(path);
    compile(&m, &sources, &dir.join("readme.dll"), true);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The checked-in golden C# of every other tree (the Rust-hostile names, the
/// real-world MCP tools, the R package) compiles too, without a warning.
#[test]
fn every_golden_csharp_compiles() {
    let m = mono();
    for (_, out, _) in toolgen_tests::TREES.iter().skip(1) {
        let dir = work_dir(out.rsplit('/').next().unwrap_or("tree"));
        let mut sources = files_below(&root().join(out).join("csharp"), "cs");
        sources.extend(csharp_bridge_sources());
        assert!(sources.len() >= 4, "{out}: {sources:?}");
        compile(&m, &sources, &dir.join("golden.dll"), true);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The golden C# of the real-world-shaped MCP tools (tests/generated-realworld)
/// compiles, and under Mono, with the dispatcher's serializer, says what the
/// specs say: an optional nullable property keeps absent, `null` and a value
/// apart (its `Specified` flag), byte for byte; a required one must be there
/// (`null` if it is nullable); unions read and write the branch the JSON is,
/// by type or by tag; `2.0` is an integer and `2.5` is not.
#[test]
fn the_realworld_golden_csharp_says_what_the_specs_say() {
    let m = mono();
    let dir = work_dir("realworld");
    let mut sources = files_below(&root().join("tests/generated-realworld/csharp"), "cs");
    sources.extend(csharp_bridge_sources());
    sources.push(root().join("tests/csharp/RoundTrip.cs"));
    let exe = dir.join("roundtrip.exe");
    compile(&m, &sources, &exe, false);
    let issue = "Mcp.UpdateIssue+Input";
    let base = r#""owner":"octo","repo":"demo","issue_number":7"#;
    let same = |t: &str, json: String| (t.to_owned(), json.clone(), json);
    let mut cases: Vec<(String, String, String)> = vec![
        same(issue, format!(r#"{{{base},"state_reason":null}}"#)),
        same(issue, format!(r#"{{{base},"body":null,"state_reason":null}}"#)),
        same(issue, format!(r#"{{{base},"body":"text","milestone":3,"labels":["bug"],"state":"closed","state_reason":"completed"}}"#)),
        same(issue, format!(r#"{{{base},"milestone":null,"labels":null,"state_reason":"reopened"}}"#)),
        same("Mcp.UpdateIssue+Output", r#"{"number":8,"url":"u","body":null,"closed_at":null}"#.to_owned()),
        same("Mcp.UpdateIssue+Output", r#"{"number":8,"url":"u","closed_at":"2026-11-26"}"#.to_owned()),
        same("Mcp.SearchFiles+Input", r#"{"query":"TODO","paths":"src","max_results":50}"#.to_owned()),
        same("Mcp.SearchFiles+Input", r#"{"query":{"pattern":"fn","case_sensitive":true},"paths":["src","tests"],"max_results":2}"#.to_owned()),
        same("Mcp.DrawShape+Input", r##"{"shape":{"kind":"circle","radius":2.5},"color":"#ff0000"}"##.to_owned()),
        same("Mcp.DrawShape+Input", r##"{"shape":{"kind":"rectangle","width":3.0,"height":4.0},"color":"#000000"}"##.to_owned()),
        same("Mcp.SetValue+Input", r#"{"key":"a","value":true,"ttl_seconds":null}"#.to_owned()),
        same("Mcp.SetValue+Input", r#"{"key":"a","value":"x","ttl_seconds":60}"#.to_owned()),
        same("Mcp.SetValue+Input", r#"{"key":"a","value":4.5}"#.to_owned()),
        same("Mcp.SetValue+Output", r#"{"previous":null}"#.to_owned()),
        same("Mcp.SetValue+Output", r#"{"previous":false}"#.to_owned()),
        // Told apart by a `const` tag, by a `$ref`'s tag, and by a property only one has.
        same("Mcp.CloseTask+Input", r#"{"id":1,"resolution":{"kind":"duplicate","of":3}}"#.to_owned()),
        same("Mcp.CloseTask+Input", r#"{"id":1,"resolution":{"kind":"done"}}"#.to_owned()),
        same("Mcp.ReadResource+Output", r#"{"contents":[{"type":"text","text":"a"},{"type":"resource","uri":"u"}]}"#.to_owned()),
        same("Mcp.AddNote+Input", r#"{"title":"t","parts":[{"type":"link","uri":"u"},{"type":"text","text":"x"}]}"#.to_owned()),
        same("Mcp.OpenTarget+Input", r#"{"target":{"path":"a.txt","line":3}}"#.to_owned()),
        same("Mcp.OpenTarget+Input", r#"{"target":{"url":"https://x"}}"#.to_owned()),
    ];
    cases.push((
        "Mcp.CountWords+Input".to_owned(),
        r#"{"text":"a b","limit":2.0}"#.to_owned(),
        r#"{"text":"a b","limit":2}"#.to_owned(),
    ));
    let refused = [
        (issue, format!(r#"{{{base}}}"#), "state_reason"),
        (
            issue,
            r#"{"repo":"demo","issue_number":7,"state_reason":null}"#.to_owned(),
            "owner",
        ),
        (
            "Mcp.CountWords+Input",
            r#"{"text":"a","limit":2.5}"#.to_owned(),
            "2.5 is not an integer",
        ),
        (
            "Mcp.DrawShape+Input",
            r#"{"shape":{"kind":"triangle"}}"#.to_owned(),
            "`kind` is none of",
        ),
        (
            "Mcp.SetValue+Input",
            r#"{"key":"a","value":[1]}"#.to_owned(),
            "none of its shapes",
        ),
    ];
    let mut input = String::new();
    for (t, json, _) in &cases {
        input.push_str(&format!("{t}\t{json}\n"));
    }
    for (t, json, _) in &refused {
        input.push_str(&format!("{t}\t{json}\n"));
    }
    let mut child = Command::new(&m.mono)
        .arg(&exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start mono: {e}"));
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input.as_bytes());
    }
    let out = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("mono: {e}"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), cases.len() + refused.len(), "{text}");
    for ((t, json, want), got) in cases.iter().zip(&lines) {
        assert_eq!(*got, want.as_str(), "{t}: {json}");
    }
    for ((t, json, why), got) in refused.iter().zip(&lines[cases.len()..]) {
        assert!(
            got.starts_with("ERROR") && got.contains(why),
            "{t}: {json} gave {got}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_unity_editor_code_path_compiles() {
    // `#if UNITY_EDITOR` code (the main-thread queue, reload handling) against stubs
    // of the two UnityEditor APIs it uses, with Unity's signatures.
    let m = mono();
    let dir = work_dir("unity");
    let mut sources = files_below(&root().join("generated/csharp"), "cs");
    sources.extend(csharp_bridge_sources());
    sources.push(root().join("tests/csharp/UnityEditorStub.cs"));
    compile_with(
        &m,
        &sources,
        &dir.join("unity.dll"),
        true,
        &["-define:UNITY_EDITOR"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The bridge host process; killed on drop.
struct Host {
    child: Child,
    port: u16,
    /// The project's bridge secret, which the host created.
    secret: String,
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The bridge host for the Unity project `project` (its secret is required).
fn start_host(m: &Mono, exe: &Path, examples: &Path, project: &Path) -> Host {
    start_host_with(m, exe, examples, project, &[])
}

fn start_host_with(
    m: &Mono,
    exe: &Path,
    examples: &Path,
    project: &Path,
    env: &[(&str, &str)],
) -> Host {
    let mut child = Command::new(&m.mono)
        .arg(exe)
        .arg(examples)
        .arg("0")
        .arg(project)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start mono: {e}"));
    let mut line = String::new();
    if let Some(out) = child.stdout.take() {
        let _ = BufReader::new(out).read_line(&mut line);
    }
    let port = line
        .split_whitespace()
        .nth(2)
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("the bridge host did not start: {line:?}"));
    let handlers = format!("with {} handlers", TOOLS.len());
    assert!(line.contains(&handlers), "{line}");
    let secret = bridge::read_secret(project).unwrap_or_else(|e| panic!("{e}"));
    Host {
        child,
        port,
        secret,
    }
}

/// Writes `ExampleHandlers.cs` into `dir`: a test handler for every generated EditorMCP
/// tool class that `tests/csharp/BridgeHost.cs` does not implement by hand, answering
/// with the matching spec example (`Examples.Answer`). Found in the generated C#, so a
/// tool added to `tool-specs/editormcp/` needs no edit to the C# tests.
fn example_handlers(dir: &Path) -> PathBuf {
    let host = std::fs::read_to_string(root().join("tests/csharp/BridgeHost.cs"))
        .unwrap_or_else(|e| panic!("tests/csharp/BridgeHost.cs: {e}"));
    let mut classes = String::new();
    for file in files_below(&root().join("generated/csharp/editormcp"), "cs") {
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let Some(output) = text
            .split("public abstract class Handler : ToolHandler<Input, ")
            .nth(1)
            .and_then(|rest| rest.split('>').next())
        else {
            continue;
        };
        let class = text
            .split("public static class ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("{}: no tool class", file.display()));
        if host.contains(&format!(": {class}.Handler")) {
            continue;
        }
        let output = if output == "Output" {
            format!("{class}.Output")
        } else {
            output.to_owned()
        };
        classes.push_str(&format!(
            r#"
    /// <summary>Test handler of <c>{class}</c>.</summary>
    public sealed class {class}Test : {class}.Handler
    {{
        /// <summary>Answers with the matching spec example.</summary>
        public override {output} Execute(ToolContext context, {class}.Input input)
        {{
            return Examples.Answer<{output}>(context, {class}.Id, input);
        }}
    }}
"#
        ));
    }
    let path = dir.join("ExampleHandlers.cs");
    let text = format!(
        "// Written by tests/tests/csharp.rs (example_handlers).\nusing EditorMcp.Core;\nusing Newtonsoft.Json.Linq;\nusing Toolgen.Bridge;\n\nnamespace Toolgen.Tests\n{{{classes}}}\n"
    );
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    path
}

fn spec_examples() -> serde_json::Map<String, Value> {
    let mut all = serde_json::Map::new();
    for info in TOOLS {
        let examples = toolgen_tests::editormcp_spec_examples(info.id);
        all.insert(info.id.to_owned(), Value::Array(examples));
    }
    all
}

/// The output deserializes into the generated Rust `Output` type of the tool.
fn typed(id: &str, output: &Value) -> Result<(), String> {
    macro_rules! check {
        ($($module:ident => $id:literal),* $(,)?) => {
            match id {
                $($id => serde_json::from_value::<editormcp::$module::Output>(output.clone()).map(|_| ()).map_err(|e| e.to_string()),)*
                other => Err(format!("no such tool {other}")),
            }
        };
    }
    toolgen_generated::for_each_editormcp_tool!(check)
}

fn info() -> ServerInfo {
    ServerInfo {
        name: "bridge-test".into(),
        version: "0".into(),
        extra: Default::default(),
    }
}

fn request(server: &Server, session: &mut Session, v: Value) -> Value {
    let line = serde_json::to_vec(&v).unwrap_or_default();
    let out = server.handle(session, &line).unwrap_or_default();
    serde_json::from_slice(&out).unwrap_or_default()
}

/// What `server` sends for request `v` (on a session with somewhere to send
/// notifications): the notifications, then the response.
fn told(server: &Server, session: &mut Session, v: Value) -> (Vec<Value>, Value) {
    let (tx, rx) = std::sync::mpsc::channel();
    let out: Arc<dyn Outbox> = Arc::new(tx);
    let line = serde_json::to_vec(&v).unwrap_or_default();
    let mut told = Vec::new();
    if let Submitted::Answered(bytes) = server.submit(session, &line, &out) {
        out.send(Outgoing::Response(bytes));
    }
    loop {
        match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(Outgoing::Notification(b)) => {
                told.push(serde_json::from_slice(&b).unwrap_or_default());
            }
            Ok(Outgoing::Response(b)) => {
                return (told, serde_json::from_slice(&b).unwrap_or_default());
            }
            Err(e) => panic!("no answer to {v}: {e}"),
        }
    }
}

/// One raw line to the bridge after the `bridge/hello` it expects, one line back.
fn raw(host: &Host, line: &str) -> Value {
    let hello = json!({"jsonrpc": "2.0", "id": 0, "method": "bridge/hello",
        "params": {"catalogHash": editormcp::CATALOG_HASH, "secret": host.secret}});
    let lines = raw_lines(host.port, &format!("{hello}\n{line}"), 2);
    assert_eq!(
        lines[0]["result"]["catalogHash"],
        editormcp::CATALOG_HASH,
        "{lines:?}"
    );
    lines[1].clone()
}

/// Raw text to the bridge, `n` lines back (`null` for each one missing).
fn raw_lines(port: u16, text: &str, n: usize) -> Vec<Value> {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
        return vec![Value::Null; n];
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(20)));
    let _ = s.write_all(format!("{text}\n").as_bytes());
    let mut r = BufReader::new(s);
    (0..n)
        .map(|_| {
            let mut out = String::new();
            let _ = r.read_line(&mut out);
            serde_json::from_str(&out).unwrap_or(Value::Null)
        })
        .collect()
}

#[test]
fn generated_csharp_bridge_serves_every_editormcp_tool_end_to_end() {
    end_to_end(false);
}

/// The same, built with `UNITY_EDITOR` against stubs of the editor API: requests go
/// through the main-thread queue, drained by `EditorApplication.update`, which the
/// host ticks on its main thread; the handlers check they run there.
#[test]
fn the_editor_main_thread_queue_serves_every_tool_end_to_end() {
    end_to_end(true);
}

/// The bridge host (generated C#, bridge package, test handlers) compiled
/// into `dir`, with `UNITY_EDITOR` against the editor stubs when `unity`;
/// the host and the spec examples file it reads.
fn build_host(m: &Mono, dir: &Path, unity: bool) -> (PathBuf, PathBuf) {
    let mut sources = files_below(&root().join("generated/csharp"), "cs");
    sources.extend(csharp_bridge_sources());
    sources.push(root().join("tests/csharp/BridgeHost.cs"));
    sources.push(example_handlers(dir));
    let exe = dir.join("bridge-host.exe");
    if unity {
        sources.push(root().join("tests/csharp/UnityEditorStub.cs"));
        compile_with(m, &sources, &exe, false, &["-define:UNITY_EDITOR"]);
    } else {
        compile(m, &sources, &exe, false);
    }
    let examples = dir.join("examples.json");
    let _ = std::fs::write(&examples, Value::Object(spec_examples()).to_string());
    (exe, examples)
}

/// The message a call through `b` fails with (empty if it succeeds).
fn refusal(b: &Bridge) -> String {
    b.call(
        "editor.selection.info",
        serde_json::Map::new(),
        Duration::from_secs(10),
    )
    .err()
    .map(|e| e.message)
    .unwrap_or_default()
}

/// A client of the host's bridge, as the Rust server is: catalog hash and secret.
fn client_of(host: &Host) -> Bridge {
    Bridge::new(format!("127.0.0.1:{}", host.port))
        .catalog_hash(editormcp::CATALOG_HASH)
        .secret(host.secret.clone())
}

/// An editor in the background runs no update loop until asked: the bridge
/// asks for an update with every request, so calls are answered although
/// the stub never ticks on its own.
#[test]
fn an_unfocused_editor_still_answers_calls() {
    let m = mono();
    let dir = work_dir("bridge-unfocused");
    let (exe, examples) = build_host(&m, &dir, true);
    let host = start_host_with(
        &m,
        &exe,
        &examples,
        &dir.join("UnityProject"),
        &[("TOOLGEN_TEST_UNFOCUSED", "1")],
    );
    let b = client_of(&host);
    for _ in 0..5 {
        let out = b
            .call(
                "editor.selection.info",
                serde_json::Map::new(),
                Duration::from_secs(20),
            )
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert!(out.output().is_object(), "{out:?}");
    }
    drop(host);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A domain reload in the middle of a call and between calls: the running
/// call finishes first (Unity reloads between editor updates), a call made
/// while the bridge is down waits for it and succeeds, and one made while it
/// stays down fails within its limit with a retryable error that says why.
#[test]
fn a_domain_reload_answers_every_call() {
    let m = mono();
    let dir = work_dir("bridge-reload");
    let (exe, examples) = build_host(&m, &dir, true);
    let mut host = start_host(&m, &exe, &examples, &dir.join("UnityProject"));
    let b = Arc::new(client_of(&host));
    let none = serde_json::Map::new;
    b.call("editor.selection.info", none(), Duration::from_secs(20))
        .unwrap_or_else(|e| panic!("{e:?}"));
    // A call that takes 3 s on the main thread, and a reload asked for while it runs.
    let slow = {
        let b = b.clone();
        std::thread::spawn(move || {
            let mut args = serde_json::Map::new();
            args.insert("assetPath".into(), json!("Assets/Hang.bin"));
            b.call("asset.info", args, Duration::from_secs(20))
        })
    };
    std::thread::sleep(Duration::from_millis(500));
    let stdin = host.child.stdin.as_mut().unwrap_or_else(|| panic!("stdin"));
    let _ = stdin.write_all(b"reload 1500\n");
    let _ = stdin.flush();
    let slow = slow
        .join()
        .unwrap_or_else(|_| panic!("the slow call's thread"));
    // It ran to its end before the reload (Hang.bin has no example: the handler's own error).
    let slow_code = slow.as_ref().err().map(|e| e.code);
    assert!(
        slow.is_ok() || slow_code == Some(toolgen_runtime::ErrorCode::ToolExecution),
        "the running call got its own answer: {slow:?}"
    );
    // The bridge is down for 1.5 s now: this call waits for it, then runs.
    let during = b.call("editor.selection.info", none(), Duration::from_secs(20));
    assert!(
        during.is_ok(),
        "a call during the reload runs after it: {during:?}"
    );
    // A reload that outlasts the call's limit: a retryable error, in time.
    let stdin = host.child.stdin.as_mut().unwrap_or_else(|| panic!("stdin"));
    let _ = stdin.write_all(b"reload 60000\n");
    let _ = stdin.flush();
    std::thread::sleep(Duration::from_millis(300));
    let started = std::time::Instant::now();
    let stuck = {
        let b = b.clone();
        std::thread::spawn(move || b.call("editor.selection.info", none(), Duration::from_secs(3)))
    };
    // Meanwhile, the status as this side sees it: the bridge it reached before
    // is gone (reloading), and a call waits for it.
    std::thread::sleep(Duration::from_millis(700));
    let seen = b
        .status(Duration::from_secs(1))
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(seen["connected"], false, "{seen}");
    assert_eq!(seen["reloading"], true, "{seen}");
    assert_eq!(seen["client"]["waitingForBridge"], true, "{seen}");
    let stuck = stuck
        .join()
        .unwrap_or_else(|_| panic!("the stuck call's thread"))
        .err()
        .unwrap_or_else(|| panic!("the bridge is still down"));
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
    assert!(
        stuck.message.contains("may still be reloading scripts")
            && stuck
                .data
                .as_ref()
                .is_some_and(|d| d.details.get("retryable") == Some(&json!(true))),
        "{stuck:?}"
    );
    drop(host);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A reload while calls wait on the main thread behind a running one: the
/// running call completes; the waiting ones are answered "not run"
/// (retryable) at the reload, never left to their time limit, and the Rust
/// client sends its own again once the bridge is back.
#[test]
fn calls_queued_behind_a_running_one_at_a_reload_get_an_answer() {
    let m = mono();
    let dir = work_dir("bridge-reload-queued");
    let (exe, examples) = build_host(&m, &dir, true);
    let mut host = start_host(&m, &exe, &examples, &dir.join("UnityProject"));
    let none = serde_json::Map::new;
    let running = Arc::new(client_of(&host));
    let queued = Arc::new(client_of(&host));
    // Both have reached the bridge before: a reload is worth waiting for.
    for b in [&running, &queued] {
        b.call("editor.selection.info", none(), Duration::from_secs(20))
            .unwrap_or_else(|e| panic!("{e:?}"));
    }
    let slow = {
        let b = running.clone();
        std::thread::spawn(move || {
            let mut args = serde_json::Map::new();
            args.insert("assetPath".into(), json!("Assets/Hang.bin"));
            b.call("asset.info", args, Duration::from_secs(20))
        })
    };
    std::thread::sleep(Duration::from_millis(500));
    // Two calls queue behind it: one from a raw connection (to see the bridge's own
    // answer), one from the Rust client.
    let raw_call = {
        let hello = json!({"jsonrpc": "2.0", "id": 0, "method": "bridge/hello",
            "params": {"catalogHash": editormcp::CATALOG_HASH, "secret": host.secret}});
        let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"tool": "editor.selection.info", "arguments": {}}});
        let port = host.port;
        std::thread::spawn(move || raw_lines(port, &format!("{hello}\n{call}"), 2))
    };
    let resent = {
        let b = queued.clone();
        std::thread::spawn(move || {
            let started = std::time::Instant::now();
            let r = b.call("editor.selection.info", none(), Duration::from_secs(20));
            (r, started.elapsed())
        })
    };
    std::thread::sleep(Duration::from_millis(500));
    let status = running
        .status(Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(
        status["queueLength"], 2,
        "both wait behind the running call: {status}"
    );
    let stdin = host.child.stdin.as_mut().unwrap_or_else(|| panic!("stdin"));
    let _ = stdin.write_all(b"reload 1500\n");
    let _ = stdin.flush();
    let slow = slow
        .join()
        .unwrap_or_else(|_| panic!("the slow call's thread"));
    assert!(
        slow.is_ok()
            || slow.as_ref().err().map(|e| e.code)
                == Some(toolgen_runtime::ErrorCode::ToolExecution),
        "the running call got its own answer: {slow:?}"
    );
    let raw = raw_call
        .join()
        .unwrap_or_else(|_| panic!("the raw call's thread"));
    assert_eq!(raw[1]["id"], 7, "{raw:?}");
    assert_eq!(
        raw[1]["error"]["data"]["details"]["notRun"], true,
        "{raw:?}"
    );
    assert_eq!(
        raw[1]["error"]["data"]["details"]["retryable"], true,
        "{raw:?}"
    );
    let (resent, took) = resent
        .join()
        .unwrap_or_else(|_| panic!("the resent call's thread"));
    assert!(resent.is_ok(), "sent again after the reload: {resent:?}");
    assert!(
        took >= Duration::from_millis(1500),
        "it waited for the reload: {took:?}"
    );
    drop(host);
    let _ = std::fs::remove_dir_all(&dir);
}

fn end_to_end(unity: bool) {
    let m = mono();
    let dir = work_dir(if unity { "bridge-unity" } else { "bridge" });
    let (exe, examples) = build_host(&m, &dir, unity);
    let all = spec_examples();
    let project = dir.join("UnityProject");
    let host = start_host(&m, &exe, &examples, &project);
    // The secret file is the user's alone.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(project.join(bridge::SECRET_FILE))
            .map(|m| m.permissions().mode() & 0o777)
            .unwrap_or_default();
        assert_eq!(mode, 0o600, "the bridge secret's mode");
    }
    let address = format!("127.0.0.1:{}", host.port);

    // The bridge itself: the dispatcher's own checks and error codes.
    let unknown = raw(
        &host,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"tool":"no.such.tool","arguments":{}}}"#,
    );
    assert_eq!(unknown["error"]["code"], -32001, "{unknown}");
    let missing = raw(
        &host,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"tool":"scene.hierarchy.dump","arguments":{}}}"#,
    );
    assert_eq!(missing["error"]["code"], -32002, "{missing}");
    assert_eq!(
        missing["error"]["data"]["details"]["missingParameters"],
        json!(["scenePath"])
    );
    let range = raw(
        &host,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"tool":"asset.dependencies.graph","arguments":{"assetPath":"a","depth":11}}}"#,
    );
    assert_eq!(range["error"]["code"], -32002, "{range}");
    assert_eq!(
        range["error"]["data"]["details"]["violations"][0]["path"],
        "/depth"
    );
    let bad_enum = raw(
        &host,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"tool":"asset.dependencies.graph","arguments":{"assetPath":"a","direction":"up"}}}"#,
    );
    assert_eq!(bad_enum["error"]["code"], -32002, "{bad_enum}");
    let unknown_param = raw(
        &host,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"tool":"asset.info","arguments":{"assetPath":"a","bogus":1}}}"#,
    );
    assert_eq!(unknown_param["error"]["code"], -32002, "{unknown_param}");
    let throws = raw(
        &host,
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"tool":"asset.info","arguments":{"assetPath":"Assets/Throw.bin"}}}"#,
    );
    assert_eq!(throws["error"]["code"], -32004, "{throws}");
    assert_eq!(throws["error"]["data"]["errorType"], "unity");
    let tool_exception = raw(
        &host,
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"tool":"asset.info","arguments":{"assetPath":"Assets/Denied.bin"}}}"#,
    );
    assert_eq!(tool_exception["error"]["code"], -32000, "{tool_exception}");
    assert_eq!(
        tool_exception["error"]["data"]["details"]["assetPath"],
        "Assets/Denied.bin"
    );
    assert_eq!(raw(&host, "{not json")["error"]["code"], -32700);
    assert_eq!(
        raw(&host, r#"{"jsonrpc":"2.0","id":8,"method":"nope"}"#)["error"]["code"],
        -32601
    );
    let listed = raw(&host, r#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#);
    assert_eq!(
        listed["result"]["tools"].as_array().map(Vec::len),
        Some(TOOLS.len())
    );
    // A notification (the Rust server passing a cancel on) gets no answer: the
    // first line back answers the ping sent after it.
    let after_cancel = raw(
        &host,
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3}}\n{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\"}",
    );
    assert_eq!(after_cancel["id"], 10, "{after_cancel}");

    // Version skew and strangers: a connection must begin with `bridge/hello` carrying
    // the catalog hash the C# was generated with; anything else is refused before any
    // call, and the connection closed.
    let stranger = raw_lines(
        host.port,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}",
        2,
    );
    assert_eq!(stranger[0]["error"]["code"], -32004, "{stranger:?}");
    assert!(
        stranger[0]["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("expects `bridge/hello`"))
    );
    assert_eq!(
        stranger[1],
        Value::Null,
        "the connection is closed after the refusal"
    );
    // Without the project's secret, or with a wrong one: refused, nothing called.
    for secret in [None, Some("0".repeat(64))] {
        let mut b = Bridge::new(address.clone()).catalog_hash(editormcp::CATALOG_HASH);
        if let Some(s) = &secret {
            b = b.secret(s.clone());
        }
        let e = refusal(&b);
        assert!(
            e.contains("did not present this project's bridge secret"),
            "{secret:?}: {e}"
        );
    }
    let old = Bridge::new(address.clone())
        .catalog_hash("0123456789abcdef")
        .secret(host.secret.clone());
    let skew = refusal(&old);
    assert!(
        skew.contains("catalog hash mismatch")
            && skew.contains("0123456789abcdef")
            && skew.contains(editormcp::CATALOG_HASH)
            && skew.contains("cargo xtask gen"),
        "{skew}"
    );
    let status = Bridge::new(address.clone())
        .catalog_hash(editormcp::CATALOG_HASH)
        .secret(host.secret.clone())
        .status(Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(status["catalogHash"], editormcp::CATALOG_HASH, "{status}");
    assert_eq!(status["connected"], true);
    assert_eq!(status["queueLength"], 0);

    // The Rust runtime forwarding to it, behind a Server: every tool, every example,
    // through the EditorMCP envelope and through MCP tools/call.
    let b = Arc::new(
        Bridge::new(address.clone())
            .catalog_hash(editormcp::CATALOG_HASH)
            .secret(host.secret.clone()),
    );
    let server = bridge::forward(Server::new(info(), &["core"], "core"), TOOLS, b.clone())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut envelope = Session::default();
    let mut mcp = Session::default();
    let init = request(
        &server,
        &mut mcp,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    let mut called: Vec<&str> = Vec::new();
    for info in TOOLS {
        let schema: Value =
            serde_json::from_str(info.output_schema.unwrap_or("true")).unwrap_or_default();
        let validator = jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{e}"));
        let examples: Vec<Value> = all[info.id].as_array().cloned().unwrap_or_default();
        for (n, example) in examples.iter().enumerate() {
            // Examples with the same input cannot be told apart by a handler: the
            // first one answers (editor.selection.info has two, for two editor states).
            let example = examples
                .iter()
                .find(|e| e["input"] == example["input"])
                .unwrap_or(example);
            let r = request(
                &server,
                &mut envelope,
                json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"tool": info.id, "arguments": example["input"]}}),
            );
            let output = &r["result"]["output"];
            assert!(
                same_json(output, &example["output"]),
                "{} example {n}: {r}\nexpected {}",
                info.id,
                example["output"]
            );
            let errors: Vec<String> = validator
                .iter_errors(output)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{}: {errors:?}", info.id);
            typed(info.id, output)
                .unwrap_or_else(|e| panic!("{}: not the generated Output type: {e}", info.id));
            assert_eq!(
                r["result"]["diagnostics"][0],
                format!("answered by the C# test handler for {}", info.id),
                "diagnostics travel back"
            );
            let r = request(
                &server,
                &mut mcp,
                json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": info.id, "arguments": example["input"]}}),
            );
            assert_eq!(r["result"]["isError"], false, "{r}");
            assert!(
                same_json(&r["result"]["structuredContent"], &example["output"]),
                "{r}"
            );
            called.push(info.id);
        }
    }
    let uncalled: Vec<&str> = TOOLS
        .iter()
        .map(|t| t.id)
        .filter(|id| !called.contains(id))
        .collect();
    assert!(
        uncalled.is_empty(),
        "tools never called through the bridge: {uncalled:?}"
    );

    // Content blocks a C# handler adds come back after the output, both ways.
    let capture = json!({"assetPath": "Assets/Capture.png", "includeDependencies": true});
    let image = json!({"type": "image", "data": "iVBORw==", "mimeType": "image/png"});
    let r = request(
        &server,
        &mut envelope,
        json!({"jsonrpc": "2.0", "id": 98, "method": "tools/call", "params": {"tool": "asset.info", "arguments": capture}}),
    );
    assert_eq!(r["result"]["content"], json!([image]), "{r}");
    let r = request(
        &server,
        &mut mcp,
        json!({"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"name": "asset.info", "arguments": capture}}),
    );
    assert_eq!(r["result"]["content"][1], image, "{r}");
    assert_eq!(r["result"]["isError"], false, "{r}");
    // What the C# handler sends while it runs reaches the client, before the answer.
    let (told, r) = told(
        &server,
        &mut mcp,
        json!({"jsonrpc": "2.0", "id": 97, "method": "tools/call", "params": {"name": "asset.info",
            "arguments": capture, "_meta": {"progressToken": 7}}}),
    );
    assert_eq!(r["result"]["content"][1], image, "{r}");
    assert_eq!(
        told,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params":
                {"progressToken": 7, "progress": 1.0, "total": 2.0, "message": "preview read"}}),
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params":
                {"level": "info", "data": {"preview": "Assets/Capture.png"}}}),
        ]
    );

    // Errors through the forwarding path keep their codes.
    let r = request(
        &server,
        &mut envelope,
        json!({"jsonrpc": "2.0", "id": 100, "method": "tools/call", "params": {"tool": "asset.info", "arguments": {"assetPath": "Assets/Throw.bin"}}}),
    );
    assert_eq!(r["error"]["code"], -32004, "{r}");
    let r = request(
        &server,
        &mut mcp,
        json!({"jsonrpc": "2.0", "id": 101, "method": "tools/call", "params": {"name": "asset.info", "arguments": {"assetPath": "Assets/Throw.bin"}}}),
    );
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert_eq!(r["result"]["_meta"]["error"]["code"], -32004, "{r}");

    // A bridge that hangs past the time limit: -32003, and the next call works (once
    // the handler, which holds the editor's main thread for 3 s, is done).
    let started = std::time::Instant::now();
    let hung = b.call(
        "asset.info",
        json!({"assetPath": "Assets/Hang.bin"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        Duration::from_millis(800),
    );
    assert_eq!(hung.err().map(|e| e.code.code()), Some(-32003));
    assert!(started.elapsed() < Duration::from_secs(10));
    let again = request(
        &server,
        &mut envelope,
        json!({"jsonrpc": "2.0", "id": 102, "method": "tools/call", "params": {"tool": "project.info", "arguments": {}}}),
    );
    assert!(again["result"]["output"].is_object(), "{again}");

    // The bridge goes away (Unity closed): a clear error naming the address, no hang.
    drop(host);
    std::thread::sleep(Duration::from_millis(200));
    let gone = request(
        &server,
        &mut envelope,
        json!({"jsonrpc": "2.0", "id": 103, "method": "tools/call", "params": {"tool": "project.info", "arguments": {}}}),
    );
    assert_eq!(gone["error"]["code"], -32004, "{gone}");
    assert!(
        gone["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("not reachable") && m.contains(&address)),
        "{gone}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The bridge's port per Unity project: the C# bridge and the Rust runtime
/// derive the same port from the same path; two projects listen on two
/// ports; a second bridge on a taken port is refused with a message naming
/// the port and what to do.
#[test]
fn a_project_s_port_is_the_same_on_both_sides_and_never_shared() {
    let m = mono();
    let dir = work_dir("ports");
    let mut sources = csharp_bridge_sources();
    sources.push(root().join("tests/csharp/Ports.cs"));
    let exe = dir.join("ports.exe");
    compile(&m, &sources, &exe, false);
    let paths = [
        "/home/ana/Projects/Shooter",
        "/home/ana/Projects/Shooter/",
        "/home/ana/Projects/Racer",
        "/srv/unity/ä-project",
        "relative/Project",
        "/tmp/a/../b/./Game",
    ];
    let out = Command::new(&m.mono)
        .arg(&exe)
        .args(paths)
        .current_dir(&dir)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    let csharp: Vec<u16> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
    let rust: Vec<u16> = paths
        .iter()
        .map(|p| {
            let p = Path::new(p);
            if p.is_relative() {
                bridge::port_for_project(&dir.join(p))
            } else {
                bridge::port_for_project(p)
            }
        })
        .collect();
    assert_eq!(csharp, rust, "{text}");
    assert_eq!(rust[0], rust[1], "a trailing slash changes nothing");
    assert_ne!(rust[0], rust[2], "two projects, two ports");
    assert!(rust.iter().all(|p| (20000..30000).contains(p)));
    // Two projects' bridges side by side; a third on a taken port is refused.
    let a = dir.join("ProjectA");
    let b = dir.join("ProjectB");
    let out = Command::new(&m.mono)
        .arg(&exe)
        .arg("--bind")
        .args([&a, &b])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    let (pa, pb) = (bridge::port_for_project(&a), bridge::port_for_project(&b));
    assert!(text.contains(&format!("listening {pa}")), "{text}");
    assert!(text.contains(&format!("listening {pb}")), "{text}");
    assert!(
        text.contains(&format!(
            "refused The toolgen bridge cannot listen on 127.0.0.1:{pa}: the port is taken"
        )) && text.contains("TOOLGEN_BRIDGE_PORT"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A manifest's `bridgePort` reaches both sides (the generated `BRIDGE_PORT`
/// and `BridgePort`), and comes after `TOOLGEN_BRIDGE_PORT` and before the
/// derived port; a port the bridge cannot listen on is a located error.
#[test]
fn a_manifest_sets_the_bridge_port() {
    let dir = work_dir("bridge-port-manifest");
    let spec = fixtures().join("breaking/compatible/after/scan.json");
    std::fs::copy(&spec, dir.join("scan.json")).unwrap_or_else(|e| panic!("{e}"));
    let manifest = |port: &str| {
        std::fs::write(
            dir.join("toolset.yaml"),
            format!("name: fixture\nformat: mcp\ntiers:\n  - id: core\n  - id: pro\nbridgePort: {port}\n"),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        toolgen::Generator::new().input(&dir).load()
    };
    let loaded = manifest("24567");
    assert!(!loaded.diagnostics.has_errors());
    assert_eq!(loaded.project.tool_sets[0].bridge_port, Some(24567));
    let files = toolgen::Generator::render(&loaded.project);
    let text = |p: &str| {
        files
            .get(p)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_else(|| panic!("no {p}"))
    };
    assert!(
        text("rust/src/fixture/mod.rs")
            .contains("pub const BRIDGE_PORT: Option<u16> = Some(24567);")
    );
    assert!(
        text("csharp/fixture/FixtureTools.cs").contains("public const int BridgePort = 24567;")
    );
    if std::env::var_os(bridge::PORT_VARIABLE).is_none() {
        assert_eq!(bridge::resolve_port(&dir, Some(24567)), 24567);
        assert_eq!(
            bridge::resolve_port(&dir, None),
            bridge::port_for_project(&dir)
        );
    }
    for bad in ["80", "70000", "2.5"] {
        let loaded = manifest(bad);
        let d = loaded
            .diagnostics
            .iter()
            .find(|d| d.message.contains("`bridgePort`"))
            .unwrap_or_else(|| panic!("{bad}: no error"));
        assert_eq!(
            loaded
                .db
                .describe(d.loc.unwrap_or_else(|| panic!("located")))
                .rsplit('/')
                .next()
                .map(|s| s.starts_with("toolset.yaml:6:")),
            Some(true)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
