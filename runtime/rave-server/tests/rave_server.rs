//! `rave-server` end to end: the binary, real `Rscript` workers, the demo R
//! package (`ravedemo/`, installed into a library under the target
//! directory), and the tool sets `tool-specs/rave/` (the six demo tools) and
//! `tests/specs/` (tools that fail on purpose).
//!
//! Needs R with jsonlite (`cargo xtask test` installs both). Without
//! `Rscript` these tests print SKIPPED and pass, unless
//! `TOOLGEN_REQUIRE_R=1` (set by `cargo xtask test`) makes that a failure.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;

use serde_json::{Value, json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The library holding the demo package, installed once per test run;
/// `None` (after a SKIPPED line) without R.
fn library(test: &str) -> Option<PathBuf> {
    static LIB: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let lib = LIB.get_or_init(|| {
        let r_ok = Command::new("Rscript")
            .args([
                "-e",
                "quit(status = if (requireNamespace('jsonlite', quietly = TRUE)) 0 else 3)",
            ])
            .output();
        match r_ok {
            Ok(o) if o.status.success() => {}
            Ok(_) => return Err("the R package jsonlite is not installed".to_owned()),
            Err(e) => return Err(format!("Rscript cannot be run ({e})")),
        }
        let lib = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rave-server-r-lib");
        std::fs::create_dir_all(&lib).map_err(|e| e.to_string())?;
        let out = Command::new("R")
            .args(["CMD", "INSTALL", "--no-test-load", "-l"])
            .arg(&lib)
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("ravedemo"))
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            panic!(
                "R CMD INSTALL of the demo package failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(lib)
    });
    match lib {
        Ok(l) => Some(l.clone()),
        Err(why) if std::env::var_os("TOOLGEN_REQUIRE_R").is_some() => {
            panic!("{test}: R is required (TOOLGEN_REQUIRE_R) but {why}")
        }
        Err(why) => {
            println!("SKIPPED {test}: {why}; `cargo xtask test` installs R and jsonlite");
            None
        }
    }
}

/// A running `rave-server` on stdio.
struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Session {
    fn start(specs: &Path, lib: &Path, extra: &[&str]) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rave-server"))
            .arg(specs)
            .arg("--r-lib")
            .arg(lib)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("rave-server: {e}"));
        let stdin = child.stdin.take().unwrap_or_else(|| panic!("stdin"));
        let stdout = BufReader::new(child.stdout.take().unwrap_or_else(|| panic!("stdout")));
        Session {
            child,
            stdin,
            stdout,
            next: 1,
        }
    }

    /// Sends a request and reads lines until its response.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.request_with(method, params, |_, _| {})
    }

    /// [`Session::request`], every other line read meanwhile given to
    /// `other` with the server's input (to answer the server's requests).
    fn request_with(
        &mut self,
        method: &str,
        params: Value,
        mut other: impl FnMut(&mut ChildStdin, Value),
    ) -> Value {
        let id = self.next;
        self.next += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{line}").unwrap_or_else(|e| panic!("write: {e}"));
        self.stdin.flush().unwrap_or_else(|e| panic!("flush: {e}"));
        loop {
            let mut text = String::new();
            let n = self
                .stdout
                .read_line(&mut text)
                .unwrap_or_else(|e| panic!("read: {e}"));
            assert!(
                n > 0,
                "rave-server closed its output before answering {method}"
            );
            let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
            if v["id"] == json!(id) {
                return v;
            }
            other(&mut self.stdin, v);
        }
    }

    /// A session that has sent MCP's `initialize` (2025-11-25).
    fn mcp(specs: &Path, lib: &Path) -> Session {
        let mut s = Session::start(specs, lib, &[]);
        let init = json!({"protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}});
        s.request("initialize", init);
        s
    }

    /// A call in the EditorMCP envelope: `{tool, output, diagnostics}` or an error.
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"tool": tool, "arguments": arguments}))
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn debug_specs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/specs")
}

fn error_message(v: &Value) -> String {
    v["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn the_demo_tools_run_in_r_and_keep_their_state() {
    let Some(lib) = library("the_demo_tools_run_in_r_and_keep_their_state") else {
        return;
    };
    let mut s = Session::start(
        &repo().join("tool-specs/rave"),
        &lib,
        &["--allow-dangerous"],
    );
    let list = s.call(
        "ravedemo-mcp_tool_subject_list",
        json!({"project": "demo", "limit": 5}),
    );
    assert_eq!(list["result"]["output"]["count"], 2, "{list}");
    assert_eq!(
        list["result"]["output"]["subjects"][1],
        json!({"subject_id": "demo/KC", "n_electrodes": 120})
    );
    let load = s.call(
        "ravedemo-mcp_tool_subject_load",
        json!({"subject_id": "demo/KC"}),
    );
    // One epoch, still an array: the output schema says so.
    assert_eq!(
        load["result"]["output"]["epochs"],
        json!(["auditory_onset"]),
        "{load}"
    );
    let run = s.call(
        "ravedemo-mcp_tool_pipeline_run",
        json!({"targets": ["power", "wavelet"]}),
    );
    assert_eq!(run["result"]["output"]["success"], true, "{run}");
    assert_eq!(
        run["result"]["diagnostics"],
        json!(["message: ran 2 target(s)"])
    );
    let status = s.call(
        "ravedemo-mcp_tool_pipeline_status",
        json!({"detail": "details"}),
    );
    assert_eq!(status["result"]["output"]["done"], 2, "{status}");
    let set = s.call(
        "ravedemo-mcp_tool_config_set_cache",
        json!({"max_size_mb": 1024}),
    );
    assert_eq!(
        set["result"]["output"],
        json!({"max_size_mb": 1024, "cleared": false})
    );
    let get = s.call("ravedemo-mcp_tool_config_get", json!({}));
    assert_eq!(
        get["result"]["output"]["settings"]["max_size_mb"], 1024,
        "{get}"
    );
    // Arguments are checked before R sees them.
    let bad = s.call("ravedemo-mcp_tool_subject_list", json!({"limit": 0}));
    assert_eq!(bad["error"]["code"], -32002, "{bad}");
}

#[test]
fn r_errors_warnings_and_missing_functions_are_reported() {
    let Some(lib) = library("r_errors_warnings_and_missing_functions_are_reported") else {
        return;
    };
    let mut s = Session::start(&debug_specs(), &lib, &[]);
    let fail = s.call(
        "ravedebug-mcp_tool_debug_fail",
        json!({"reason": "the test said so"}),
    );
    assert_eq!(fail["error"]["code"], -32000, "{fail}");
    assert!(
        error_message(&fail)
            .contains("ravedemo:::mcp_tool_debug_fail failed: failed because the test said so"),
        "{fail}"
    );
    assert_eq!(
        fail["error"]["data"]["details"]["call"],
        "mcp_tool_debug_fail(reason = \"the test said so\")"
    );
    let warn = s.call("ravedebug-mcp_tool_debug_warn", json!({}));
    assert_eq!(
        warn["result"]["diagnostics"],
        json!([
            "warning: this is only a warning",
            "message: and a message",
            "output: and printed output"
        ]),
        "{warn}"
    );
    let f = s.call("ravedebug-mcp_tool_debug_missing_function", json!({}));
    assert!(
        error_message(&f).contains("package `ravedemo` has no function `no_such_function`"),
        "{f}"
    );
    let p = s.call("ravedebug-mcp_tool_debug_missing_package", json!({}));
    assert!(
        error_message(&p).contains("the R package `notinstalledpkg` is not installed"),
        "{p}"
    );
    // A plot drawn into a PNG device and a file, as content beside the value;
    // over MCP after the value's text copy.
    let plot = s.call("ravedebug-mcp_tool_debug_plot", json!({}));
    assert_eq!(plot["result"]["output"], json!({"points": 10}), "{plot}");
    let content = &plot["result"]["content"];
    assert_eq!(content[0]["type"], "image", "{plot}");
    assert_eq!(content[0]["mimeType"], "image/png");
    let png = content[0]["data"].as_str().unwrap_or_default();
    assert!(png.starts_with("iVBORw0KGgo"), "a PNG, base64: {png}");
    let description =
        std::fs::read(repo().join("runtime/rave-server/ravedemo/DESCRIPTION")).unwrap_or_default();
    let blob = content[1]["resource"]["blob"].as_str().unwrap_or_default();
    assert!(
        blob.len() >= description.len() * 4 / 3,
        "the installed DESCRIPTION, base64: {plot}"
    );
    assert_eq!(content[1]["resource"]["uri"], "ravedemo://DESCRIPTION");
    s.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
    );
    let mcp = s.request(
        "tools/call",
        json!({"name": "ravedebug-mcp_tool_debug_plot", "arguments": {}}),
    );
    assert_eq!(mcp["result"]["content"][1]["type"], "image", "{mcp}");
    assert_eq!(mcp["result"]["content"][2]["type"], "resource", "{mcp}");
    assert_eq!(mcp["result"]["structuredContent"], json!({"points": 10}));
    let wrong = s.call("ravedebug-mcp_tool_debug_wrong_output", json!({}));
    assert!(
        error_message(&wrong).contains("does not match the tool's output schema: at `/count`"),
        "{wrong}"
    );
    let refused = s.call("ravedebug-mcp_tool_debug_dangerous", json!({}));
    assert_eq!(refused["error"]["code"], -32005, "{refused}");
    assert!(
        error_message(&refused).contains("--allow-dangerous")
            && error_message(&refused).contains("does not support MCP elicitation"),
        "{refused}"
    );
}

#[test]
fn a_call_past_its_limit_is_interrupted_and_the_next_call_works() {
    let Some(lib) = library("a_call_past_its_limit_is_interrupted_and_the_next_call_works") else {
        return;
    };
    let mut s = Session::start(&debug_specs(), &lib, &["--timeout", "1"]);
    let first = s.call("ravedebug-mcp_tool_debug_counter", json!({}));
    assert_eq!(first["result"]["output"]["count"], 1, "{first}");
    let slow = s.call("ravedebug-mcp_tool_debug_sleep", json!({"seconds": 30}));
    assert_eq!(slow["error"]["code"], -32003, "{slow}");
    assert!(error_message(&slow).contains("time limit of 1 s"), "{slow}");
    // Interrupted (SIGINT): the same worker, its state kept.
    assert!(
        error_message(&slow).contains("its worker and the worker's state are kept"),
        "{slow}"
    );
    let next = s.call("ravedebug-mcp_tool_debug_counter", json!({}));
    assert_eq!(next["result"]["output"]["count"], 2, "{next}");
    assert_eq!(
        next["result"]["output"]["pid"],
        first["result"]["output"]["pid"]
    );
    // A function that swallows interrupts: its worker is stopped, the next call gets a new one.
    let stubborn = s.call("ravedebug-mcp_tool_debug_stubborn", json!({}));
    assert_eq!(stubborn["error"]["code"], -32003, "{stubborn}");
    assert!(
        error_message(&stubborn).contains("did not stop when interrupted"),
        "{stubborn}"
    );
    let after = s.call("ravedebug-mcp_tool_debug_counter", json!({}));
    assert_eq!(after["result"]["output"]["count"], 1, "{after}");
    assert_ne!(
        after["result"]["output"]["pid"],
        first["result"]["output"]["pid"]
    );
}

/// An R function's `toolgen_log` and `toolgen_progress` reach the client as
/// MCP notifications, at the level it set, before the call's answer.
#[test]
fn an_r_function_logs_and_reports_progress() {
    let Some(lib) = library("an_r_function_logs_and_reports_progress") else {
        return;
    };
    let mut s = Session::mcp(&debug_specs(), &lib);
    s.request("logging/setLevel", json!({"level": "warning"}));
    let call = json!({"name": "ravedebug-mcp_tool_debug_log", "arguments": {},
        "_meta": {"progressToken": "p"}});
    let mut told = Vec::new();
    let v = s.request_with("tools/call", call, |_, v| told.push(v));
    assert_eq!(v["result"]["structuredContent"], json!({"ok": true}), "{v}");
    // The info message is below the level the client set; the warning is not.
    assert_eq!(
        told,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": "p", "progress": 1.0, "total": 2.0,
                    "message": "half way"}}),
            json!({"jsonrpc": "2.0", "method": "notifications/message",
                "params": {"level": "warning", "data": {"step": 2, "note": "almost done"}}}),
        ]
    );
}

/// An R function asks the user (`toolgen_elicit`) and the client's model
/// (`toolgen_sample`); the client's answers come back into R.
#[test]
fn an_r_function_asks_the_user_and_the_model() {
    let Some(lib) = library("an_r_function_asks_the_user_and_the_model") else {
        return;
    };
    let mut s = Session::start(&debug_specs(), &lib, &[]);
    let init = json!({"protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {}, "sampling": {}},
        "clientInfo": {"name": "t", "version": "0"}});
    s.request("initialize", init);
    let call = json!({"name": "ravedebug-mcp_tool_debug_ask", "arguments": {}});
    let mut asked = Vec::new();
    // The client answers the server's requests: a name, then a greeting.
    let answer = s.request_with("tools/call", call, |stdin, v| {
        let result = match v["method"].as_str() {
            Some("elicitation/create") => json!({"action": "accept", "content": {"name": "Ada"}}),
            Some("sampling/createMessage") => json!({"role": "assistant", "model": "m",
                "content": {"type": "text", "text": "Hello, Ada!"}, "stopReason": "endTurn"}),
            _ => return,
        };
        let reply = json!({"jsonrpc": "2.0", "id": v["id"], "result": result});
        writeln!(stdin, "{reply}").unwrap_or_else(|e| panic!("write: {e}"));
        stdin.flush().unwrap_or_else(|e| panic!("flush: {e}"));
        asked.push(v);
    });
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"action": "accept", "name": "Ada", "greeting": "Hello, Ada!"}),
        "{answer}"
    );
    assert_eq!(asked[0]["params"]["message"], "Who is there?");
    assert_eq!(
        asked[1]["params"]["messages"][0]["content"]["text"],
        "Greet Ada"
    );
    // A client that declared neither: the R function gets an R error.
    let mut s = Session::mcp(&debug_specs(), &lib);
    let refused = s.request(
        "tools/call",
        json!({"name": "ravedebug-mcp_tool_debug_ask", "arguments": {}}),
    );
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let text = refused["result"]["content"][0]["text"].to_string();
    assert!(text.contains("cannot be asked"), "{text}");
}

/// The same R function under MCP 2026-07-28, where the server sends no
/// requests: each question comes back as an `InputRequiredResult`, and the
/// call, sent again with the answers, runs the function again until every
/// question has its answer (SEP-2322).
#[test]
fn an_r_function_asks_in_rounds_under_2026_07_28() {
    let Some(lib) = library("an_r_function_asks_in_rounds_under_2026_07_28") else {
        return;
    };
    let mut s = Session::start(&debug_specs(), &lib, &[]);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "sampling": {}}});
    let mut call = json!({"name": "ravedebug-mcp_tool_debug_ask", "arguments": {},
        "_meta": meta});
    let mut asked = Vec::new();
    let answer = loop {
        let r = s.request("tools/call", call.clone());
        let result = r["result"].clone();
        if result["resultType"] != "input_required" {
            break result;
        }
        assert!(asked.len() < 3, "more rounds than questions: {r}");
        let mut responses = serde_json::Map::new();
        for (key, request) in result["inputRequests"].as_object().into_iter().flatten() {
            let answer = match request["method"].as_str() {
                Some("elicitation/create") => {
                    json!({"action": "accept", "content": {"name": "Ada"}})
                }
                _ => json!({"role": "assistant", "model": "m",
                    "content": {"type": "text", "text": "Hello, Ada!"}, "stopReason": "endTurn"}),
            };
            responses.insert(key.clone(), answer);
            asked.push(request.clone());
        }
        call["inputResponses"] = responses.into();
        call["requestState"] = result["requestState"].clone();
    };
    assert_eq!(answer["resultType"], "complete", "{answer}");
    assert_eq!(
        answer["structuredContent"],
        json!({"action": "accept", "name": "Ada", "greeting": "Hello, Ada!"}),
        "{answer}"
    );
    // One question a round, in the function's order.
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert_eq!(asked[0]["params"]["message"], "Who is there?");
    assert_eq!(
        asked[1]["params"]["messages"][0]["content"]["text"],
        "Greet Ada"
    );
}

/// A 5 s R call made a task (MCP 2025-11-25): polled while R runs it, then
/// cancelled, which interrupts R at once and keeps the worker and its
/// state; a shorter one is run to its result.
#[test]
fn an_r_call_runs_as_a_task_and_is_cancelled() {
    let Some(lib) = library("an_r_call_runs_as_a_task_and_is_cancelled") else {
        return;
    };
    let mut s = Session::mcp(&debug_specs(), &lib);
    let counter = |s: &mut Session| {
        let r = s.request(
            "tools/call",
            json!({"name": "ravedebug-mcp_tool_debug_counter", "arguments": {}}),
        );
        r["result"]["structuredContent"].clone()
    };
    let first = counter(&mut s);
    let sleep = |seconds: u64| {
        json!({"name": "ravedebug-mcp_tool_debug_sleep", "arguments": {"seconds": seconds},
            "task": {"ttl": 60000}})
    };
    let started = std::time::Instant::now();
    let created = s.request("tools/call", sleep(5));
    let task = json!({ "taskId": created["result"]["task"]["taskId"] });
    assert_eq!(created["result"]["task"]["status"], "working", "{created}");
    std::thread::sleep(std::time::Duration::from_millis(500));
    let polled = s.request("tasks/get", task.clone());
    assert_eq!(polled["result"]["status"], "working", "{polled}");
    let cancelled = s.request("tasks/cancel", task.clone());
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    // The worker is interrupted at once: the next call does not wait 5 s,
    // and finds its state.
    let next = counter(&mut s);
    assert!(
        started.elapsed().as_secs_f64() < 4.0,
        "{:?}",
        started.elapsed()
    );
    assert_eq!(next["count"], 2, "{next}");
    assert_eq!(next["pid"], first["pid"]);
    let gone = s.request("tasks/result", task);
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
    // Run to its result.
    let created = s.request("tools/call", sleep(1));
    let task = json!({ "taskId": created["result"]["task"]["taskId"] });
    let done = s.request("tasks/result", task.clone());
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"slept": 1}),
        "{done}"
    );
    let polled = s.request("tasks/get", task);
    assert_eq!(polled["result"]["status"], "completed", "{polled}");
}

#[test]
fn a_worker_that_quits_is_reported_and_replaced() {
    let Some(lib) = library("a_worker_that_quits_is_reported_and_replaced") else {
        return;
    };
    let mut s = Session::start(&debug_specs(), &lib, &[]);
    let first = s.call("ravedebug-mcp_tool_debug_counter", json!({}));
    let quit = s.call("ravedebug-mcp_tool_debug_quit", json!({}));
    assert_eq!(quit["error"]["code"], -32000, "{quit}");
    assert!(error_message(&quit).contains("exit status: 7"), "{quit}");
    assert!(
        error_message(&quit).contains("the next call starts a new worker"),
        "{quit}"
    );
    let next = s.call("ravedebug-mcp_tool_debug_counter", json!({}));
    assert_eq!(next["result"]["output"]["count"], 1, "{next}");
    assert_ne!(
        next["result"]["output"]["pid"],
        first["result"]["output"]["pid"]
    );
    let said = next["result"]["diagnostics"][0]
        .as_str()
        .unwrap_or_default();
    assert!(
        said.contains("a new R worker") && said.contains("exited"),
        "{next}"
    );
}

#[test]
fn bad_specs_and_a_missing_rscript_are_clear_errors() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rave-server-bad-spec");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        dir.join("pkg-mcp_tool_x.yaml"),
        "name: pkg-mcp_tool_x\ndescription: x\nparameters: [oops\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = Command::new(env!("CARGO_BIN_EXE_rave-server"))
        .arg(&dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("pkg-mcp_tool_x.yaml:3:18"),
        "a located error: {err}"
    );
    // No R at that path: the call says what to install.
    let mut s = Session::start(
        &repo().join("tool-specs/rave"),
        Path::new("/nonexistent"),
        &["--rscript", "/nonexistent/Rscript"],
    );
    let e = s.call("ravedemo-mcp_tool_config_get", json!({}));
    assert!(
        error_message(&e).contains("could not be started")
            && error_message(&e).contains("r-base-core"),
        "{e}"
    );
}

/// The checked-in R workers (the goldens of the `r` output) are R that R parses.
#[test]
fn generated_r_workers_parse() {
    if library("generated_r_workers_parse").is_none() {
        return;
    }
    for tree in ["generated", "tests/generated-rave"] {
        let dir = repo().join(tree).join("r");
        let sets = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for set in sets.flatten() {
            let worker = set.path().join("worker.R");
            let out = Command::new("Rscript")
                .args(["-e", "invisible(parse(commandArgs(TRUE)[1]))"])
                .arg(&worker)
                .output()
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(
                out.status.success(),
                "{}: {}",
                worker.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            let table = std::fs::read_to_string(set.path().join("tools.json"))
                .unwrap_or_else(|e| panic!("{e}"));
            let table: Value = serde_json::from_str(&table).unwrap_or_else(|e| panic!("{e}"));
            assert!(table["tools"].as_object().is_some_and(|t| !t.is_empty()));
        }
    }
}
