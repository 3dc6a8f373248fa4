//! `cargo xtask bench-lsp [--specs 1000] [--edits 40]`: `toolgen lsp`
//! (release) on a tool set of synthetic EditorMCP specs. Measures the first
//! load of the folder (initialize to the first answer), then the latency an
//! author sees: from an edit of one spec (a category typo made, then
//! fixed) to the server publishing that file's diagnostics, the 25 ms
//! debounce included; and the server's memory.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::tools::{cargo, step};

struct Server {
    child: Child,
    stdin: ChildStdin,
    /// Each message with when it arrived.
    incoming: Receiver<(Instant, Value)>,
    id: i64,
}

impl Server {
    fn start(bin: &Path, dir: &Path) -> Result<Server, String> {
        let mut child = Command::new(bin)
            .arg("lsp")
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, incoming) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut len = 0;
                let mut line = String::new();
                while reader.read_line(&mut line).unwrap_or(0) > 0 && line.trim_end() != "" {
                    if let Some(v) = line.trim_end().strip_prefix("Content-Length: ") {
                        len = v.parse().unwrap_or(0);
                    }
                    line.clear();
                }
                let mut body = vec![0; len];
                if len == 0 || reader.read_exact(&mut body).is_err() {
                    return;
                }
                let m = serde_json::from_slice(&body).unwrap_or(Value::Null);
                if tx.send((Instant::now(), m)).is_err() {
                    return;
                }
            }
        });
        Ok(Server {
            child,
            stdin,
            incoming,
            id: 0,
        })
    }

    fn send(&mut self, m: Value) -> Result<(), String> {
        let body = m.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len())
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("the server is gone: {e}"))
    }

    /// Waits for the first message `want` accepts; returns when it arrived.
    fn wait(&mut self, want: impl Fn(&Value) -> bool) -> Result<Instant, String> {
        loop {
            let (at, m) = (self.incoming.recv_timeout(Duration::from_secs(120)))
                .map_err(|_| "no answer from toolgen lsp in 120 s")?;
            if want(&m) {
                return Ok(at);
            }
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Result<Instant, String> {
        self.id += 1;
        let id = self.id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        self.wait(|m| m["id"] == json!(id) && m.get("method").is_none())
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<(), String> {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// Resident and peak memory, in MiB.
    fn memory(&self) -> (f64, f64) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()));
        let field = |name: &str| {
            let status = status.as_deref().unwrap_or("");
            let line = status.lines().find(|l| l.starts_with(name)).unwrap_or("");
            let kb: f64 = line
                .split_whitespace()
                .nth(1)
                .and_then(|v| v.parse().ok())
                .unwrap_or(0.0);
            kb / 1024.0
        };
        (field("VmRSS:"), field("VmHWM:"))
    }
}

pub fn run(root: &Path, args: &[&str]) -> Result<(), String> {
    let flag = |name: &str, default: usize| {
        let at = args.iter().position(|a| *a == name);
        at.and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (n, edits) = (flag("--specs", 1000), flag("--edits", 40));
    step(
        "cargo build --release -p toolgen",
        cargo().args([
            "build",
            "--quiet",
            "--release",
            "-p",
            "toolgen",
            "--bin",
            "toolgen",
        ]),
    )?;
    let dir = root.join("target/bench-lsp");
    toolgen_tests::synth::write(&dir.join("specs"), n).map_err(|e| e.to_string())?;
    let spec = first_spec(&dir.join("specs"))?;
    let text = std::fs::read_to_string(&spec).map_err(|e| e.to_string())?;
    let category = serde_json::from_str::<Value>(&text).map_err(|e| e.to_string())?["category"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let good = format!("\"category\": \"{category}\"");
    let bad = text.replacen(&good, &format!("\"category\": \"{category}x\""), 1);
    let uri = format!("file://{}", spec.display());

    let mut server = Server::start(&root.join("target/release/toolgen"), &dir)?;
    let started = Instant::now();
    let root_uri = format!("file://{}", dir.display());
    server.request(
        "initialize",
        json!({"rootUri": root_uri, "capabilities": {}}),
    )?;
    server.notify("initialized", json!({}))?;
    let position = json!({"line": 1, "character": 4});
    let doc = json!({"uri": uri});
    server.request(
        "textDocument/hover",
        json!({"textDocument": doc, "position": position}),
    )?;
    let load = started.elapsed();
    let (rss_loaded, _) = server.memory();

    let open = json!({"uri": uri, "languageId": "json", "version": 1, "text": text});
    server.notify("textDocument/didOpen", json!({"textDocument": open}))?;
    std::thread::sleep(Duration::from_millis(300));
    let (mut latencies, mut whole) = (Vec::new(), Vec::new());
    for i in 0..edits {
        let now = if i % 2 == 0 { &bad } else { &text };
        let doc = json!({"uri": uri, "version": i + 2});
        let params = json!({"textDocument": doc, "contentChanges": [{"text": now}]});
        let sent = Instant::now();
        server.notify("textDocument/didChange", params)?;
        let published = server.wait(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == json!(uri)
        })?;
        latencies.push(published.saturating_duration_since(sent));
        // Answered once the whole folder is checked again (one thread).
        let hover = json!({"textDocument": {"uri": uri}, "position": position});
        let answered = server.request("textDocument/hover", hover)?;
        whole.push(answered.saturating_duration_since(sent));
        std::thread::sleep(Duration::from_millis(100));
    }
    let (rss, peak) = server.memory();
    server.request("shutdown", Value::Null)?;
    server.notify("exit", Value::Null)?;
    let _ = server.child.wait();
    latencies.sort();
    whole.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let at = |q: f64| ms(latencies[((latencies.len() - 1) as f64 * q).round() as usize]);
    let whole_median = ms(whole[whole.len() / 2]);
    println!("toolgen lsp, {n} EditorMCP specs, {edits} edits (2 cores):\n");
    println!("| measure | value |\n|---|---|");
    println!(
        "| first load (initialize to first answer) | {:.0} ms |",
        ms(load)
    );
    println!(
        "| edit to diagnostics published, median | {:.1} ms |",
        at(0.5)
    );
    println!("| edit to diagnostics published, p90 | {:.1} ms |", at(0.9));
    println!("| edit to diagnostics published, max | {:.1} ms |", at(1.0));
    println!("| edit to the whole folder checked, median | {whole_median:.1} ms |");
    println!("| resident memory after the first load | {rss_loaded:.0} MiB |");
    println!("| resident memory after the edits (peak) | {rss:.0} MiB ({peak:.0} MiB) |");
    if std::env::var_os("KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(())
}

fn first_spec(dir: &Path) -> Result<std::path::PathBuf, String> {
    let mut specs: Vec<_> = (std::fs::read_dir(dir).map_err(|e| e.to_string())?)
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    specs.sort();
    specs
        .into_iter()
        .next()
        .ok_or_else(|| "no spec written".to_owned())
}
