//! `cargo xtask bench-server`: toolgen's `editormcp-server` against a server
//! written with the official MCP Python SDK (`MCPServer`,
//! tests/bench/py_server.py) serving an equivalent tool, in one run.
//!
//! - stdio: the MCP handshake, then N `tools/call project.info` requests,
//!   sequentially (send, wait, repeat) and pipelined (a writer thread sends
//!   all N while the reader collects responses);
//! - Streamable HTTP (both servers stateless, JSON responses): N calls from
//!   one client (send, wait, repeat) and from 64 clients at once, each on
//!   its own keep-alive connection.
//!
//! Reports requests per second, p50/p99 latency (send to response, per
//! request) and each server's peak resident memory. `editormcp-server
//! --rmcp` is the same server carried by rmcp, the official Rust SDK;
//! `rmcp_native` (an example of editormcp-server) is the tool written with
//! rmcp alone, as its users write one.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Result {
    pub rps: f64,
    pub p50: Duration,
    pub p99: Duration,
    /// The server's peak resident memory, in KiB (Linux), when measured.
    pub peak_kib: Option<u64>,
}

/// The peak resident memory of process `pid` so far (`VmHWM`, Linux).
fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A peak memory for a table cell.
fn mib(kib: Option<u64>) -> String {
    kib.map_or_else(
        || "—".to_owned(),
        |k| format!("{:.1} MiB", k as f64 / 1024.0),
    )
}

fn request(id: usize, tool: &str) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"{tool}\",\"arguments\":{{}}}}}}\n"
    )
}

fn id_of(line: &str) -> Option<usize> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    if v.get("error").is_some() || v["result"]["isError"] == true {
        return None;
    }
    v["id"].as_u64().map(|i| i as usize)
}

/// `n` calls of `tool` (no arguments) on the stdio server `cmd`.
pub fn measure(
    cmd: &[String],
    tool: &str,
    n: usize,
    pipelined: bool,
) -> std::result::Result<Result, String> {
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
    // One call before timing: a server that starts its backend lazily (an R
    // worker) is measured warm.
    input
        .write_all(request(0, tool).as_bytes())
        .and_then(|()| input.flush())
        .map_err(|e| e.to_string())?;
    line.clear();
    out.read_line(&mut line).map_err(|e| e.to_string())?;
    id_of(&line).ok_or_else(|| format!("bad response to the warm-up call: {line}"))?;
    let sent: Arc<Mutex<Vec<Instant>>> = Arc::new(Mutex::new(vec![Instant::now(); n + 1]));
    let mut received = vec![Instant::now(); n + 1];
    let started = Instant::now();
    let writer = if pipelined {
        let sent = sent.clone();
        let tool = tool.to_owned();
        Some(std::thread::spawn(move || {
            for i in 1..=n {
                if let Ok(mut s) = sent.lock() {
                    s[i] = Instant::now();
                }
                let _ = input.write_all(request(i, &tool).as_bytes());
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
                .write_all(request(i, tool).as_bytes())
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
    let peak_kib = peak_kib(child.id());
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
        peak_kib,
    })
}

/// One HTTP/1.1 keep-alive connection posting `tools/call project.info`.
struct HttpClient {
    stream: std::net::TcpStream,
    reader: BufReader<std::net::TcpStream>,
    request: Vec<u8>,
}

impl HttpClient {
    fn connect(addr: std::net::SocketAddr) -> std::result::Result<HttpClient, String> {
        let stream = std::net::TcpStream::connect(addr).map_err(|e| format!("{addr}: {e}"))?;
        let _ = stream.set_nodelay(true);
        let reader = BufReader::new(stream.try_clone().map_err(|e| e.to_string())?);
        let body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"project.info\",\"arguments\":{}}}";
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes();
        Ok(HttpClient {
            stream,
            reader,
            request,
        })
    }

    /// One call: the request out, the whole response in (checked).
    fn call(&mut self) -> std::result::Result<(), String> {
        self.stream
            .write_all(&self.request)
            .map_err(|e| e.to_string())?;
        let mut line = String::new();
        let mut length = None;
        let mut status_ok = false;
        loop {
            line.clear();
            if self
                .reader
                .read_line(&mut line)
                .map_err(|e| e.to_string())?
                == 0
            {
                return Err("the server closed the connection".to_owned());
            }
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if l.starts_with("HTTP/1.1 ") {
                status_ok = l.starts_with("HTTP/1.1 200");
            }
            if let Some((k, v)) = l.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse::<usize>().ok();
                }
            }
        }
        let length = length.ok_or("a response without Content-Length")?;
        let mut body = vec![0; length];
        std::io::Read::read_exact(&mut self.reader, &mut body).map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&body);
        if !status_ok || id_of(&text).is_none() {
            return Err(format!("bad response: {text}"));
        }
        Ok(())
    }
}

/// N calls over HTTP from `clients` connections at once.
fn measure_http(
    addr: std::net::SocketAddr,
    n: usize,
    clients: usize,
) -> std::result::Result<Result, String> {
    let per = n / clients;
    let started = Instant::now();
    let threads: Vec<_> = (0..clients)
        .map(|_| {
            std::thread::spawn(move || -> std::result::Result<Vec<Duration>, String> {
                let mut c = HttpClient::connect(addr)?;
                let mut lat = Vec::with_capacity(per);
                for _ in 0..per {
                    let t = Instant::now();
                    c.call()?;
                    lat.push(t.elapsed());
                }
                Ok(lat)
            })
        })
        .collect();
    let mut lat = Vec::with_capacity(n);
    for t in threads {
        lat.extend(t.join().map_err(|_| "client thread panicked")??);
    }
    let elapsed = started.elapsed();
    lat.sort();
    let total = lat.len();
    Ok(Result {
        rps: total as f64 / elapsed.as_secs_f64(),
        p50: lat[total / 2],
        p99: lat[(total * 99 / 100).min(total - 1)],
        peak_kib: None,
    })
}

/// The machine's floor for one client: round trips of a 300-byte message
/// to a thread that echoes it over loopback TCP (no HTTP, no MCP).
fn tcp_floor(n: usize) -> std::result::Result<Result, String> {
    use std::io::Read;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    std::thread::spawn(move || {
        if let Ok((mut s, _)) = listener.accept() {
            let _ = s.set_nodelay(true);
            let mut buf = [0u8; 1024];
            while let Ok(n) = s.read(&mut buf) {
                if n == 0 || s.write_all(&buf[..n]).is_err() {
                    return;
                }
            }
        }
    });
    let mut c = std::net::TcpStream::connect(addr).map_err(|e| e.to_string())?;
    let _ = c.set_nodelay(true);
    let message = [b'x'; 300];
    let mut buf = [0u8; 1024];
    let mut lat = Vec::with_capacity(n);
    let started = Instant::now();
    for _ in 0..n {
        let t = Instant::now();
        c.write_all(&message).map_err(|e| e.to_string())?;
        let mut got = 0;
        while got < message.len() {
            got += c.read(&mut buf).map_err(|e| e.to_string())?;
        }
        lat.push(t.elapsed());
    }
    let elapsed = started.elapsed();
    lat.sort();
    Ok(Result {
        rps: n as f64 / elapsed.as_secs_f64(),
        p50: lat[n / 2],
        p99: lat[n * 99 / 100],
        peak_kib: None,
    })
}

fn free_port() -> std::result::Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| e.to_string())
}

/// Starts an HTTP server and waits until it accepts connections.
fn start_http(cmd: &[String], port: u16) -> std::result::Result<std::process::Child, String> {
    let child = Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", cmd[0]))?;
    for _ in 0..300 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(child);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(format!("{} did not listen on port {port}", cmd[0]))
}

fn http_rows(
    bin: &str,
    native: &str,
    python: &Path,
    root: &Path,
) -> std::result::Result<(), String> {
    println!(
        "\n| server (Streamable HTTP) | clients | requests | requests/s | p50 latency | p99 latency | peak memory |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let mut rows: HashMap<(bool, usize), Result> = HashMap::new();
    for (rust, flag) in [
        (true, None),
        (true, Some("inline")),
        (true, Some("rmcp")),
        (true, Some("native")),
        (false, None),
    ] {
        let port = free_port()?;
        let cmd: Vec<String> = if flag == Some("native") {
            vec![
                native.to_owned(),
                "--http".into(),
                format!("127.0.0.1:{port}"),
            ]
        } else if rust {
            let mut c: Vec<String> = vec![
                bin.to_owned(),
                "--http".into(),
                format!("127.0.0.1:{port}"),
                "--stateless".into(),
            ];
            match flag {
                Some("inline") => c.extend(["--execution".into(), "inline".into()]),
                Some(_) => c.push("--rmcp".into()),
                None => {}
            }
            c
        } else {
            vec![
                python.to_string_lossy().into_owned(),
                root.join("tests/bench/py_server.py")
                    .to_string_lossy()
                    .into_owned(),
                "--http".into(),
                port.to_string(),
            ]
        };
        let mut child = start_http(&cmd, port)?;
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        let label = match (rust, flag) {
            (true, None) => "toolgen editormcp-server --stateless",
            (true, Some("inline")) => "toolgen editormcp-server --stateless --execution inline",
            (true, Some("rmcp")) => "editormcp-server --stateless --rmcp (served by rmcp)",
            (true, Some(_)) => "rmcp 3.11 alone, `#[tool]` with `Json<T>` (stateless, JSON)",
            _ => "MCP Python SDK 2.3 MCPServer (stateless, JSON)",
        };
        let (n_seq, n_conc) = if rust {
            (20_000, 64_000)
        } else {
            (1_000, 3_200)
        };
        // Warm up (connection setup, lazy initialization).
        let _ = measure_http(addr, 64, 1);
        for (clients, n) in [(1usize, n_seq), (64, n_conc)] {
            let r = measure_http(addr, n, clients);
            let r = match r {
                Ok(r) => r,
                Err(e) => {
                    let _ = child.kill();
                    return Err(format!("{label}: {e}"));
                }
            };
            println!(
                "| {label} | {clients} | {n} | {:.0} | {:.1} µs | {:.1} µs | {} |",
                r.rps,
                r.p50.as_secs_f64() * 1e6,
                r.p99.as_secs_f64() * 1e6,
                mib(peak_kib(child.id()))
            );
            if flag.is_none() {
                rows.insert((rust, clients), r);
            }
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    let floor = tcp_floor(20_000)?;
    println!(
        "| loopback TCP echo, 300 bytes (no HTTP, no MCP): this machine's floor | 1 | 20000 | {:.0} | {:.1} µs | {:.1} µs | — |",
        floor.rps,
        floor.p50.as_secs_f64() * 1e6,
        floor.p99.as_secs_f64() * 1e6
    );
    for clients in [1, 64] {
        if let (Some(a), Some(b)) = (rows.get(&(true, clients)), rows.get(&(false, clients))) {
            println!(
                "\nHTTP, {clients} client(s): toolgen serves {:.0}x the Python SDK's throughput; its p99 {:.0} µs against the SDK's p50 {:.0} µs",
                a.rps / b.rps,
                a.p99.as_secs_f64() * 1e6,
                b.p50.as_secs_f64() * 1e6
            );
        }
    }
    Ok(())
}

/// `examples/rmcp_native.rs` of editormcp-server, built for release: the
/// same tool written with rmcp alone.
fn build_native(root: &Path) -> std::result::Result<String, String> {
    let mut cmd = crate::tools::cargo();
    cmd.args(["build", "--quiet", "--release", "-p", "editormcp-server"])
        .args(["--example", "rmcp_native"]);
    crate::tools::step("cargo build (release) --example rmcp_native", &mut cmd)?;
    Ok(root
        .join("target/release/examples/rmcp_native")
        .to_string_lossy()
        .into_owned())
}

pub fn run(root: &Path, python: &Path) -> std::result::Result<(), String> {
    let native = build_native(root)?;
    let bin = crate::tools::build_server(true)?
        .to_string_lossy()
        .into_owned();
    let rust = vec![bin.clone()];
    let rust_inline = vec![bin.clone(), "--execution".to_owned(), "inline".to_owned()];
    let rust_rmcp = vec![bin, "--rmcp".to_owned()];
    let native_cmd = vec![native.clone()];
    let py = vec![
        python.to_string_lossy().into_owned(),
        root.join("tests/bench/py_server.py")
            .to_string_lossy()
            .into_owned(),
    ];
    println!("| server | mode | requests | requests/s | p50 latency | p99 latency | peak memory |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    let mut rates = HashMap::new();
    for (label, cmd, n) in [
        ("toolgen editormcp-server (Rust)", &rust, 50_000usize),
        (
            "toolgen editormcp-server --execution inline",
            &rust_inline,
            50_000,
        ),
        (
            "editormcp-server --rmcp (served by rmcp)",
            &rust_rmcp,
            50_000,
        ),
        (
            "rmcp 3.11 alone, `#[tool]` with `Json<T>`",
            &native_cmd,
            50_000,
        ),
        ("MCP Python SDK 2.3 MCPServer", &py, 2_000),
    ] {
        for pipelined in [false, true] {
            let r = measure(cmd, "project.info", n, pipelined)?;
            let mode = if pipelined { "pipelined" } else { "sequential" };
            rates.insert((label, pipelined), r.rps);
            println!(
                "| {label} | {mode} | {n} | {:.0} | {:.1} µs | {:.1} µs | {} |",
                r.rps,
                r.p50.as_secs_f64() * 1e6,
                r.p99.as_secs_f64() * 1e6,
                mib(r.peak_kib)
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
    let bin = crate::tools::build_server(true)?
        .to_string_lossy()
        .into_owned();
    http_rows(&bin, &native, python, root)
}

/// `cargo xtask bench-r`: calls per second through the R bridge
/// (`rave-server`, release) for a trivial R function, with one and with two
/// workers, sequential and pipelined over stdio.
pub fn run_r(root: &Path) -> std::result::Result<(), String> {
    let lib = crate::tools::r_toolchain()?;
    let mut build = crate::tools::cargo();
    build.args(["build", "--quiet", "--release", "-p", "rave-server"]);
    crate::tools::step("cargo build (release) -p rave-server", &mut build)?;
    let bin = root
        .join("target/release/rave-server")
        .to_string_lossy()
        .into_owned();
    let specs = root.join("tool-specs/rave").to_string_lossy().into_owned();
    let lib = lib.to_string_lossy().into_owned();
    println!("| server | workers | mode | requests | requests/s | p50 latency | p99 latency |");
    println!("|---|---:|---|---:|---:|---:|---:|");
    for workers in ["1", "2"] {
        let cmd: Vec<String> = [&bin, &specs, "--r-lib", &lib, "--workers", workers]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        for pipelined in [false, true] {
            let n = 2_000;
            let r = measure(&cmd, "ravedemo-mcp_tool_config_get", n, pipelined)?;
            let mode = if pipelined { "pipelined" } else { "sequential" };
            println!(
                "| rave-server, R 4.2 worker, `config_get` | {workers} | {mode} | {n} | {:.0} | {:.1} µs | {:.1} µs |",
                r.rps,
                r.p50.as_secs_f64() * 1e6,
                r.p99.as_secs_f64() * 1e6
            );
        }
    }
    Ok(())
}
