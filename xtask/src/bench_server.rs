//! `cargo xtask bench-server`: MCP over stdio, toolgen's `editormcp-server`
//! against a server written with the official MCP Python SDK (`MCPServer`,
//! tests/bench/py_server.py) serving an equivalent tool, in one run.
//!
//! For each server: the MCP handshake, then N `tools/call project.info`
//! requests, sequentially (send, wait, repeat) and pipelined (a writer thread
//! sends all N while the reader collects responses). Reports requests per
//! second and p50/p99 latency (send to response, per request).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct Result {
    rps: f64,
    p50: Duration,
    p99: Duration,
}

fn request(id: usize) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"project.info\",\"arguments\":{{}}}}}}\n"
    )
}

fn id_of(line: &str) -> Option<usize> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    if v.get("error").is_some() || v["result"]["isError"] == true {
        return None;
    }
    v["id"].as_u64().map(|i| i as usize)
}

fn measure(cmd: &[String], n: usize, pipelined: bool) -> std::result::Result<Result, String> {
    let mut child = Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", cmd[0]))?;
    let stdin = child.stdin.take().ok_or("no stdin")?;
    let mut out = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    let mut input = BufWriter::new(stdin);
    let mut line = String::new();
    let handshake = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
    input
        .write_all(handshake.as_bytes())
        .and_then(|()| input.flush())
        .map_err(|e| e.to_string())?;
    out.read_line(&mut line).map_err(|e| e.to_string())?;
    let sent: Arc<Mutex<Vec<Instant>>> = Arc::new(Mutex::new(vec![Instant::now(); n + 1]));
    let mut received = vec![Instant::now(); n + 1];
    let started = Instant::now();
    let writer = if pipelined {
        let sent = sent.clone();
        Some(std::thread::spawn(move || {
            for i in 1..=n {
                if let Ok(mut s) = sent.lock() {
                    s[i] = Instant::now();
                }
                let _ = input.write_all(request(i).as_bytes());
                if i % 32 == 0 || i == n {
                    let _ = input.flush();
                }
            }
            input
        }))
    } else {
        for i in 1..=n {
            if let Ok(mut s) = sent.lock() {
                s[i] = Instant::now();
            }
            input
                .write_all(request(i).as_bytes())
                .and_then(|()| input.flush())
                .map_err(|e| e.to_string())?;
            line.clear();
            out.read_line(&mut line).map_err(|e| e.to_string())?;
            let id = id_of(&line).ok_or_else(|| format!("bad response: {line}"))?;
            received[id] = Instant::now();
        }
        None
    };
    if writer.is_some() {
        let mut seen: HashMap<usize, ()> = HashMap::new();
        while seen.len() < n {
            line.clear();
            if out.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
                return Err(format!("server closed after {} responses", seen.len()));
            }
            let id = id_of(&line).ok_or_else(|| format!("bad response: {line}"))?;
            received[id] = Instant::now();
            seen.insert(id, ());
        }
    }
    let elapsed = started.elapsed();
    let mut input_back = writer
        .map(|w| w.join().map_err(|_| "writer thread panicked".to_owned()))
        .transpose()?;
    drop(input_back.take());
    let _ = child.kill();
    let _ = child.wait();
    let sent = sent.lock().map_err(|_| "lock")?.clone();
    let mut lat: Vec<Duration> = (1..=n)
        .map(|i| received[i].saturating_duration_since(sent[i]))
        .collect();
    lat.sort();
    Ok(Result {
        rps: n as f64 / elapsed.as_secs_f64(),
        p50: lat[n / 2],
        p99: lat[(n * 99 / 100).min(n - 1)],
    })
}

pub fn run(root: &Path, python: &Path) -> std::result::Result<(), String> {
    let bin = crate::build_server(true)?.to_string_lossy().into_owned();
    let rust = vec![bin.clone()];
    let rust_inline = vec![bin, "--execution".to_owned(), "inline".to_owned()];
    let py = vec![
        python.to_string_lossy().into_owned(),
        root.join("tests/bench/py_server.py")
            .to_string_lossy()
            .into_owned(),
    ];
    println!("| server | mode | requests | requests/s | p50 latency | p99 latency |");
    println!("|---|---|---:|---:|---:|---:|");
    let mut rates = HashMap::new();
    for (label, cmd, n) in [
        ("toolgen editormcp-server (Rust)", &rust, 50_000usize),
        (
            "toolgen editormcp-server --execution inline",
            &rust_inline,
            50_000,
        ),
        ("MCP Python SDK 2.3 MCPServer", &py, 2_000),
    ] {
        for pipelined in [false, true] {
            let r = measure(cmd, n, pipelined)?;
            let mode = if pipelined { "pipelined" } else { "sequential" };
            rates.insert((label, pipelined), r.rps);
            println!(
                "| {label} | {mode} | {n} | {:.0} | {:.1} µs | {:.1} µs |",
                r.rps,
                r.p50.as_secs_f64() * 1e6,
                r.p99.as_secs_f64() * 1e6
            );
        }
    }
    for pipelined in [false, true] {
        let (a, b) = (
            rates.get(&("toolgen editormcp-server (Rust)", pipelined)),
            rates.get(&("MCP Python SDK 2.3 MCPServer", pipelined)),
        );
        if let (Some(a), Some(b)) = (a, b) {
            println!(
                "\n{}: toolgen serves {:.0}x the Python SDK's throughput",
                if pipelined { "pipelined" } else { "sequential" },
                a / b
            );
        }
    }
    Ok(())
}
