//! The server as a concurrent MCP server: calls answered as they finish,
//! serial tool sets, cancellation, progress, log messages, sampling, a bounded queue, time limits on
//! the pool, `tools/list` pages and change notifications, and MCP
//! 2026-07-28 requests. No timing is asserted: handlers wait on channels
//! that the test releases, and a generous receive limit turns a deadlock
//! into a failure instead of a hang.

mod common;

use std::io::{Read, Write};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};
use toolgen_runtime::server::{LogLevel, Outbox, Outgoing, Sampled, Sampling, Submitted};
use toolgen_runtime::{
    Call, Content, Execution, Handler, Server, ServerInfo, Session, ToolDescriptor, ToolOutput,
};

/// Long enough never to be reached when things work.
const PATIENCE: Duration = Duration::from_secs(20);

fn descriptor(id: &str, timeout: Option<Duration>) -> ToolDescriptor {
    ToolDescriptor {
        timeout,
        ..common::descriptor(id, json!({"type": "object"}))
    }
}

fn info() -> ServerInfo {
    ServerInfo::new("concurrency-test", "1.2.3")
}

fn handler(f: impl Fn(Call, Map<String, Value>) -> ToolOutput + Send + Sync + 'static) -> Handler {
    Arc::new(move |c, a| Ok(f(c, a)))
}

/// A gate a handler waits at until the test opens it.
#[derive(Clone)]
struct Gate(Arc<Mutex<Receiver<()>>>);

fn gate() -> (Sender<()>, Gate) {
    let (tx, rx) = channel();
    (tx, Gate(Arc::new(Mutex::new(rx))))
}

impl Gate {
    fn wait(&self) {
        let rx = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let _ = rx.recv_timeout(PATIENCE);
    }
}

/// An input that yields the lines the test sends, as they are sent.
struct Lines(Receiver<Vec<u8>>, Vec<u8>);

impl Read for Lines {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.1.is_empty() {
            match self.0.recv() {
                Ok(line) => self.1 = line,
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.1.len());
        buf[..n].copy_from_slice(&self.1[..n]);
        self.1.drain(..n);
        Ok(n)
    }
}

/// An output that hands each written line to the test.
struct Sink(Sender<Value>, Vec<u8>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.1.extend_from_slice(buf);
        while let Some(i) = self.1.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.1.drain(..=i).collect();
            let v = serde_json::from_slice(&line).unwrap_or(Value::Null);
            let _ = self.0.send(v);
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A server on stdio in a thread: send lines, receive messages.
struct Running {
    input: Option<Sender<Vec<u8>>>,
    output: Receiver<Value>,
    done: Option<std::thread::JoinHandle<()>>,
}

impl Running {
    fn start(server: Server) -> Running {
        let (in_tx, in_rx) = channel();
        let (out_tx, out_rx) = channel();
        let done = std::thread::spawn(move || {
            let _ = server.serve(Lines(in_rx, Vec::new()), Sink(out_tx, Vec::new()));
        });
        Running {
            input: Some(in_tx),
            output: out_rx,
            done: Some(done),
        }
    }

    fn send(&self, v: Value) {
        let mut line = v.to_string().into_bytes();
        line.push(b'\n');
        if let Some(i) = &self.input {
            let _ = i.send(line);
        }
    }

    fn next(&self) -> Value {
        self.output
            .recv_timeout(PATIENCE)
            .unwrap_or_else(|_| panic!("no message within {PATIENCE:?}"))
    }

    /// Ends the input and returns every message written after it.
    fn close(mut self) -> Vec<Value> {
        self.input = None;
        if let Some(d) = self.done.take() {
            let _ = d.join();
        }
        self.output.try_iter().collect()
    }
}

fn call(id: u64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {}}})
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
}

#[test]
fn a_slow_call_does_not_hold_up_a_fast_one() {
    let (release, slow_gate) = gate();
    let server = Server::new(info(), &["core"], "core")
        .pool_size(2)
        .tool(
            descriptor("slow", None),
            handler(move |_, _| {
                slow_gate.wait();
                ToolOutput::new(json!({"slow": true}))
            }),
        )
        .and_then(|s| {
            s.tool(
                descriptor("fast", None),
                handler(|_, _| ToolOutput::new(json!({"fast": true}))),
            )
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let r = Running::start(server);
    r.send(initialize());
    assert_eq!(r.next()["id"], 0);
    r.send(call(1, "slow"));
    r.send(call(2, "fast"));
    // The slow call waits for the test, which waits for the fast answer.
    let first = r.next();
    assert_eq!(first["id"], 2, "{first}");
    assert_eq!(first["result"]["structuredContent"]["fast"], true);
    let _ = release.send(());
    assert_eq!(r.next()["id"], 1);
    assert!(r.close().is_empty());
}

#[test]
fn a_serial_tool_set_runs_one_call_at_a_time_in_order() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let l = log.clone();
    let server = Server::new(info(), &["core"], "core")
        .pool_size(4)
        .serial(true)
        .tool(
            descriptor("step", None),
            handler(move |_, a| {
                let n = a.get("n").and_then(Value::as_u64).unwrap_or(0);
                l.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(format!("start {n}"));
                std::thread::sleep(Duration::from_millis(20));
                l.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(format!("end {n}"));
                ToolOutput::new(json!({}))
            }),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let r = Running::start(server);
    for n in 1..=4 {
        r.send(json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"tool": "step", "arguments": {"n": n}}}));
    }
    let ids: Vec<Value> = (0..4).map(|_| r.next()["id"].clone()).collect();
    assert_eq!(ids, vec![json!(1), json!(2), json!(3), json!(4)]);
    let log = log.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let expected: Vec<String> = (1..=4)
        .flat_map(|n| [format!("start {n}"), format!("end {n}")])
        .collect();
    assert_eq!(log, expected);
    r.close();
}

#[test]
fn a_cancelled_call_gets_no_response_and_its_handler_sees_the_cancel() {
    let (started_tx, started) = channel();
    let (saw_tx, saw) = channel();
    let started_tx = Mutex::new(started_tx);
    let saw_tx = Mutex::new(saw_tx);
    let server = Server::new(info(), &["core"], "core")
        .tool(
            descriptor("long", None),
            handler(move |call, _| {
                let _ = started_tx.lock().map(|t| t.send(()));
                let flag = Arc::new(Mutex::new(false));
                let f = flag.clone();
                call.on_cancel(move || *f.lock().unwrap_or_else(|p| p.into_inner()) = true);
                while !call.is_cancelled() {
                    std::thread::sleep(Duration::from_millis(2));
                }
                let callback_ran = *flag.lock().unwrap_or_else(|p| p.into_inner());
                let _ = saw_tx.lock().map(|t| t.send(callback_ran));
                ToolOutput::new(json!({"late": true}))
            }),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let r = Running::start(server);
    r.send(initialize());
    r.next();
    r.send(call(7, "long"));
    let _ = started.recv_timeout(PATIENCE);
    r.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7, "reason": "user"}}));
    assert_eq!(
        saw.recv_timeout(PATIENCE),
        Ok(true),
        "the handler saw the cancel and its callback ran"
    );
    r.send(json!({"jsonrpc": "2.0", "id": 8, "method": "ping"}));
    assert_eq!(r.next()["id"], 8);
    let rest = r.close();
    assert!(
        rest.iter().all(|m| m["id"] != 7),
        "no response for the cancelled call: {rest:?}"
    );
}

/// A call whose id is still running is refused (an error response with
/// that id, nothing run); once the first is answered the id is free again,
/// and a count of unsent responses left by the refused one does not keep
/// the connection from closing.
#[test]
fn an_id_still_running_is_refused_and_free_again_once_answered() {
    let (open, gate) = gate();
    let (started_tx, started) = channel();
    let started_tx = Mutex::new(started_tx);
    let runs = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = runs.clone();
    let server = Server::new(info(), &["core"], "core")
        .tool(
            descriptor("held", None),
            handler(move |_, _| {
                counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let _ = started_tx.lock().map(|t| t.send(()));
                gate.wait();
                ToolOutput::new(json!({"done": true}))
            }),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let r = Running::start(server);
    r.send(initialize());
    r.next();
    r.send(call(5, "held"));
    let _ = started.recv_timeout(PATIENCE);
    r.send(call(5, "held"));
    let refused = r.next();
    assert_eq!(refused["id"], 5, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("still running"), "{refused}");
    let _ = open.send(());
    let answered = r.next();
    assert_eq!(
        (answered["id"].clone(), answered.get("error")),
        (json!(5), None),
        "{answered}"
    );
    r.send(call(5, "held"));
    let _ = started.recv_timeout(PATIENCE);
    let _ = open.send(());
    let again = r.next();
    assert_eq!(
        (again["id"].clone(), again.get("error")),
        (json!(5), None),
        "{again}"
    );
    assert!(r.close().is_empty());
    assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 2);
}

#[test]
fn progress_notifications_arrive_in_order_before_the_result() {
    let server = Server::new(info(), &["core"], "core")
        .tool(
            descriptor("work", None),
            handler(|call, _| {
                for i in 1..=5 {
                    call.progress(f64::from(i), Some(5.0), Some(&format!("step {i}")));
                }
                ToolOutput::new(json!({"done": true}))
            }),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let r = Running::start(server);
    r.send(initialize());
    r.next();
    r.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "work", "arguments": {}, "_meta": {"progressToken": "tok"}}}));
    for i in 1..=5 {
        let n = r.next();
        assert_eq!(n["method"], "notifications/progress", "{n}");
        assert_eq!(
            n["params"],
            json!({"progressToken": "tok", "progress": f64::from(i), "total": 5.0, "message": format!("step {i}")})
        );
    }
    assert_eq!(r.next()["id"], 3);
    // Without a token, nothing but the result.
    r.send(call(4, "work"));
    assert_eq!(r.next()["id"], 4);
    r.close();
}

/// Log messages reach an MCP client before the result, at the levels it
/// asked for (`logging/setLevel`; all of them until it does); an envelope
/// call gets none; a level MCP does not know is refused.
#[test]
fn log_messages_arrive_at_the_level_the_client_set() {
    for execution in [Execution::Worker, Execution::Inline] {
        log_messages_arrive(execution);
    }
}

fn log_messages_arrive(execution: Execution) {
    let server = Server::new(info(), &["core"], "core")
        .execution(execution)
        .tool(
            descriptor("chatty", None),
            handler(|call, _| {
                call.log(LogLevel::Debug, "starting");
                call.log(LogLevel::Warning, json!({"slow": true}));
                ToolOutput::new(json!({"done": true}))
            }),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let r = Running::start(server);
    r.send(initialize());
    let init = r.next();
    assert_eq!(
        init["result"]["capabilities"]["logging"],
        json!({}),
        "{init}"
    );
    let message = |level: &str, data: Value| {
        json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": level, "data": data}})
    };
    r.send(call(1, "chatty"));
    assert_eq!(r.next(), message("debug", json!("starting")));
    assert_eq!(r.next(), message("warning", json!({"slow": true})));
    assert_eq!(r.next()["id"], 1);
    let set = |id: u64, level: &str| json!({"jsonrpc": "2.0", "id": id, "method": "logging/setLevel", "params": {"level": level}});
    r.send(set(2, "info"));
    assert_eq!(r.next()["result"], json!({}));
    r.send(call(3, "chatty"));
    assert_eq!(r.next(), message("warning", json!({"slow": true})));
    assert_eq!(r.next()["id"], 3);
    r.send(set(4, "loud"));
    assert_eq!(r.next()["error"]["code"], -32602);
    r.send(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"tool": "chatty", "arguments": {}}}));
    assert_eq!(r.next()["id"], 5, "the envelope has no log messages");
    // A 2026-07-28 request hears logs only when its `_meta` asks, at its level.
    let modern = |id: u64, level: Option<&str>| {
        let mut meta = modern_meta();
        if let Some(l) = level {
            meta["io.modelcontextprotocol/logLevel"] = json!(l);
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "chatty", "arguments": {}, "_meta": meta}})
    };
    r.send(modern(6, None));
    assert_eq!(r.next()["id"], 6, "no opt-in, no messages");
    r.send(modern(7, Some("debug")));
    assert_eq!(r.next(), message("debug", json!("starting")));
    assert_eq!(r.next(), message("warning", json!({"slow": true})));
    assert_eq!(r.next()["id"], 7);
    r.close();
}

/// A tool asks the client's model (`sampling/createMessage`) while it runs,
/// and answers with what the model said; a client that did not declare
/// `sampling` is never asked.
#[test]
fn a_tool_asks_the_clients_model() {
    let server = Server::new(info(), &["core"], "core")
        .tool(
            descriptor("ask", None),
            handler(|call, _| {
                let asked = call.sample(&Sampling::ask("Name a colour.", 10), PATIENCE);
                ToolOutput::new(match asked {
                    Sampled::Answered {
                        content: Content::Text { text },
                        model,
                        stop_reason,
                        ..
                    } => json!({"said": text, "model": model, "stop": stop_reason}),
                    other => json!({"not": format!("{other:?}")}),
                })
            }),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let r = Running::start(server);
    r.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {"sampling": {}}, "clientInfo": {"name": "t", "version": "0"}}}));
    r.next();
    r.send(call(1, "ask"));
    let request = r.next();
    assert_eq!(request["method"], "sampling/createMessage", "{request}");
    assert_eq!(
        request["params"],
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Name a colour."}}], "maxTokens": 10})
    );
    r.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {
        "role": "assistant", "content": {"type": "text", "text": "Teal."},
        "model": "test-model", "stopReason": "endTurn"}}));
    let answer = r.next();
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"said": "Teal.", "model": "test-model", "stop": "endTurn"}),
        "{answer}"
    );
    r.close();
    let server = Server::new(info(), &["core"], "core")
        .tool(
            descriptor("ask", None),
            handler(|call, _| {
                let asked = call.sample(&Sampling::ask("?", 1), PATIENCE);
                ToolOutput::new(json!({"unsupported": asked == Sampled::Unsupported}))
            }),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let r = Running::start(server);
    r.send(initialize());
    r.next();
    r.send(call(2, "ask"));
    assert_eq!(
        r.next()["result"]["structuredContent"],
        json!({"unsupported": true})
    );
    r.close();
}

#[test]
fn a_full_queue_answers_busy_at_once() {
    let (release, g) = gate();
    let g2 = g.clone();
    let server = Server::new(info(), &["core"], "core")
        .pool_size(1)
        .queue_limit(1)
        .tool(
            descriptor("block", None),
            handler(move |_, _| {
                g2.wait();
                ToolOutput::new(json!({}))
            }),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let mut session = Session::default();
    let (tx, rx) = channel::<Outgoing>();
    let reply: Arc<dyn Outbox> = Arc::new(tx);
    let req = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"tool": "block", "arguments": {}}}).to_string()
    };
    // One running, one waiting: both accepted.
    assert_eq!(
        server.submit(&mut session, req(1).as_bytes(), &reply),
        Submitted::Pending
    );
    // Let the first reach its worker before the second queues.
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(
        server.submit(&mut session, req(2).as_bytes(), &reply),
        Submitted::Pending
    );
    // The third finds the queue full and is answered at once, by the outbox.
    assert_eq!(
        server.submit(&mut session, req(3).as_bytes(), &reply),
        Submitted::Pending
    );
    let busy = rx
        .recv_timeout(PATIENCE)
        .map(|m| m.bytes().to_vec())
        .unwrap_or_default();
    let busy: Value = serde_json::from_slice(&busy).unwrap_or_default();
    assert_eq!(busy["id"], 3);
    assert_eq!(busy["error"]["code"], -32000);
    assert_eq!(busy["error"]["data"]["details"]["busy"], true);
    assert!(
        busy["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("busy"))
    );
    drop(g);
    let _ = release.send(());
    let _ = release.send(());
    let mut ids: Vec<Value> = (0..2)
        .map(|_| {
            let m = rx
                .recv_timeout(PATIENCE)
                .map(|m| m.bytes().to_vec())
                .unwrap_or_default();
            serde_json::from_slice::<Value>(&m).unwrap_or_default()["id"].clone()
        })
        .collect();
    ids.sort_by_key(|v| v.as_u64());
    assert_eq!(ids, vec![json!(1), json!(2)]);
}

#[test]
fn an_overrun_call_is_answered_and_the_pool_keeps_serving() {
    let (release, g) = gate();
    let server = Server::new(info(), &["core"], "core")
        .pool_size(1)
        .tool(
            descriptor("hangs", Some(Duration::from_millis(50))),
            handler(move |_, _| {
                g.wait();
                ToolOutput::new(json!({}))
            }),
        )
        .and_then(|s| {
            s.tool(
                descriptor("quick", None),
                handler(|_, _| ToolOutput::new(json!({"ok": 1}))),
            )
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let r = Running::start(server);
    r.send(initialize());
    r.next();
    r.send(call(1, "hangs"));
    let timed_out = r.next();
    assert_eq!(timed_out["id"], 1);
    assert_eq!(timed_out["result"]["isError"], true);
    assert_eq!(timed_out["result"]["_meta"]["error"]["code"], -32003);
    // The only worker is still stuck in `hangs`; a new one serves this.
    r.send(call(2, "quick"));
    assert_eq!(r.next()["id"], 2);
    let _ = release.send(());
    assert!(
        r.close().is_empty(),
        "no late answer for the abandoned call"
    );
}

/// A call with a short limit, started while one with a long limit runs (the
/// watchdog asleep until the long one is due), is still answered on time.
#[test]
fn a_short_limit_is_kept_while_a_long_one_runs() {
    let (release_long, long_gate) = gate();
    let (release_short, short_gate) = gate();
    let (started_tx, started) = channel();
    let started_tx = Mutex::new(started_tx);
    let server = Server::new(info(), &["core"], "core")
        .pool_size(2)
        .tool(
            descriptor("long", Some(Duration::from_secs(600))),
            handler(move |_, _| {
                let _ = started_tx.lock().map(|tx| tx.send(()));
                long_gate.wait();
                ToolOutput::new(json!({"long": true}))
            }),
        )
        .and_then(|s| {
            s.tool(
                descriptor("short", Some(Duration::from_millis(50))),
                handler(move |_, _| {
                    short_gate.wait();
                    ToolOutput::new(json!({}))
                }),
            )
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let r = Running::start(server);
    r.send(initialize());
    r.next();
    r.send(call(1, "long"));
    let _ = started.recv_timeout(PATIENCE);
    r.send(call(2, "short"));
    let timed_out = r.next();
    assert_eq!(timed_out["id"], 2);
    assert_eq!(timed_out["result"]["_meta"]["error"]["code"], -32003);
    let _ = release_short.send(());
    let _ = release_long.send(());
    assert_eq!(r.next()["id"], 1, "the long call is answered when it ends");
    let _ = r.close();
}

/// Threads that each wait for their own calls (`Server::handle`, one
/// session each) on a pool smaller than their number: every call is
/// answered with its own arguments, or refused as busy when the queue is
/// full, and none is lost or crossed with another's.
#[test]
fn callers_waiting_on_a_small_pool_each_get_their_own_answers() {
    for queue_limit in [1, 64] {
        let server = Server::new(info(), &["core"], "core")
            .pool_size(2)
            .queue_limit(queue_limit)
            .tool(
                descriptor("echo", Some(Duration::from_secs(30))),
                handler(|_, a| ToolOutput::new(json!({"n": a.get("n")}))),
            )
            .unwrap_or_else(|e| panic!("{e}"));
        let server = Arc::new(server);
        let callers: Vec<_> = (0..6u64)
            .map(|t| {
                let server = server.clone();
                std::thread::spawn(move || {
                    let mut session = Session::default();
                    let (mut answered, mut busy) = (0, 0);
                    for i in 0..300u64 {
                        let n = t * 1000 + i;
                        let line = json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                            "params": {"tool": "echo", "arguments": {"n": n}}})
                        .to_string();
                        let out = server.handle(&mut session, line.as_bytes());
                        let v: Value = out
                            .and_then(|o| serde_json::from_slice(&o).ok())
                            .unwrap_or_else(|| panic!("no answer to call {n}"));
                        assert_eq!(v["id"], n);
                        if v["error"]["data"]["details"]["busy"] == true {
                            busy += 1;
                        } else {
                            assert_eq!(v["result"]["output"]["n"], n, "{v}");
                            answered += 1;
                        }
                    }
                    (answered, busy)
                })
            })
            .collect();
        let (mut answered, mut busy) = (0, 0);
        for c in callers {
            let (a, b) = c.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            answered += a;
            busy += b;
        }
        assert_eq!(answered + busy, 6 * 300);
        assert!(answered > 0, "queue limit {queue_limit}: nothing answered");
        if queue_limit == 64 {
            assert_eq!(busy, 0, "six callers never fill a queue of 64");
        }
    }
}

fn many_tools(n: usize) -> Server {
    let mut s = Server::new(info(), &["core"], "core").page_size(2);
    for i in 0..n {
        s = s
            .tool(
                descriptor(&format!("tool.{i}"), None),
                handler(|_, _| ToolOutput::new(json!({}))),
            )
            .unwrap_or_else(|e| panic!("{e}"));
    }
    s
}

fn request(server: &Server, session: &mut Session, v: Value) -> Value {
    let out = server
        .handle(session, v.to_string().as_bytes())
        .unwrap_or_default();
    serde_json::from_slice(&out).unwrap_or_default()
}

#[test]
fn tools_list_pages_by_cursor_in_a_stable_order() {
    let server = many_tools(5);
    let mut session = Session::default();
    request(&server, &mut session, initialize());
    let mut names = Vec::new();
    let mut cursor = Value::Null;
    for page in 0.. {
        assert!(page < 10, "pagination ends");
        let mut params = json!({});
        if !cursor.is_null() {
            params["cursor"] = cursor.clone();
        }
        let r = request(
            &server,
            &mut session,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params}),
        );
        let tools = r["result"]["tools"].as_array().cloned().unwrap_or_default();
        assert!(tools.len() <= 2);
        names.extend(
            tools
                .iter()
                .map(|t| t["name"].as_str().unwrap_or("").to_owned()),
        );
        cursor = r["result"]["nextCursor"].clone();
        if cursor.is_null() {
            break;
        }
    }
    assert_eq!(
        names,
        vec!["tool.0", "tool.1", "tool.2", "tool.3", "tool.4"]
    );
    for bad in [json!("nonsense"), json!(42), json!("t1.zz")] {
        let r = request(
            &server,
            &mut session,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": bad}}),
        );
        assert_eq!(r["error"]["code"], -32602, "{r}");
    }
}

#[test]
fn adding_or_removing_a_tool_tells_mcp_clients() {
    let server = many_tools(1);
    let (tx, rx) = channel::<Outgoing>();
    let notify: Arc<dyn Outbox> = Arc::new(tx);
    let mut session = Session::with_notifications(notify.clone());
    let init = request(&server, &mut session, initialize());
    assert_eq!(init["result"]["capabilities"]["tools"]["listChanged"], true);
    server
        .add_tool(
            descriptor("late", None),
            handler(|_, _| ToolOutput::new(json!({}))),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let n = rx
        .recv_timeout(PATIENCE)
        .map(|m| m.bytes().to_vec())
        .unwrap_or_default();
    assert_eq!(
        serde_json::from_slice::<Value>(&n).unwrap_or_default(),
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    );
    let r = request(
        &server,
        &mut session,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "late", "arguments": {}}}),
    );
    assert_eq!(r["result"]["isError"], false);
    assert!(server.remove_tool("late"));
    assert!(rx.recv_timeout(PATIENCE).is_ok());
    assert!(!server.remove_tool("late"));
    let r = request(
        &server,
        &mut session,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "late", "arguments": {}}}),
    );
    assert_eq!(r["error"]["code"], -32602);
}

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"}
    })
}

#[test]
fn modern_requests_need_no_handshake() {
    let server = many_tools(1).instructions("Use tool.0.");
    let mut session = Session::default();
    let d = request(
        &server,
        &mut session,
        json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": modern_meta()}}),
    );
    let r = &d["result"];
    assert_eq!(r["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(r["resultType"], "complete");
    assert_eq!(r["instructions"], "Use tool.0.");
    assert_eq!(
        r["_meta"]["io.modelcontextprotocol/serverInfo"],
        json!({"name": "concurrency-test", "version": "1.2.3"})
    );
    // tools/list and tools/call without `initialize`.
    let l = request(
        &server,
        &mut session,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": modern_meta()}}),
    );
    assert_eq!(l["result"]["tools"][0]["name"], "tool.0");
    assert_eq!(l["result"]["resultType"], "complete");
    let c = request(
        &server,
        &mut session,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "tool.0", "arguments": {}, "_meta": modern_meta()}}),
    );
    assert_eq!(c["result"]["resultType"], "complete");
    assert_eq!(c["result"]["isError"], false);
    assert_eq!(
        c["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "concurrency-test"
    );
    // The envelope is checked.
    let mut no_caps = modern_meta();
    no_caps
        .as_object_mut()
        .map(|m| m.remove("io.modelcontextprotocol/clientCapabilities"));
    let e = request(
        &server,
        &mut session,
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": no_caps}}),
    );
    assert_eq!(e["error"]["code"], -32602);
    let mut old = modern_meta();
    old["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let e = request(
        &server,
        &mut session,
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"_meta": old}}),
    );
    assert_eq!(e["error"]["code"], -32022);
    assert_eq!(
        e["error"]["data"],
        json!({"supported": ["2026-07-28"], "requested": "2099-01-01"})
    );
    // The same server still speaks the handshake era.
    let i = request(&server, &mut session, initialize());
    assert_eq!(i["result"]["protocolVersion"], "2025-11-25");
    assert!(i["result"].get("resultType").is_none());
}

#[test]
fn an_id_can_be_reused_once_its_answer_is_out() {
    let server = many_tools(1);
    let mut session = Session::default();
    for _ in 0..200 {
        let r = request(
            &server,
            &mut session,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"tool": "tool.0", "arguments": {}}}),
        );
        assert!(r.get("result").is_some(), "{r}");
    }
}

/// Calls that arrive just as an idle worker stops spinning are not left in
/// the queue until the idle timeout (30 s): 4,000 calls one after another,
/// each after a pause about as long as the spin (50 µs), must all be
/// answered well within `PATIENCE`.
#[test]
fn a_call_arriving_as_a_worker_parks_is_not_left_waiting() {
    let server = Server::new(info(), &["core"], "core")
        .pool_size(1)
        .tool(
            descriptor("quick", None),
            handler(|c, _| c.finish(json!({}))),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let (done, finished) = channel();
    std::thread::spawn(move || {
        for i in 0..4_000u64 {
            // A busy wait: a sleep overshoots by about the spin's length.
            let until = std::time::Instant::now() + Duration::from_micros(20 + i % 60);
            while std::time::Instant::now() < until {
                std::hint::spin_loop();
            }
            if server.call("quick", json!({})).is_err() {
                break;
            }
        }
        let _ = done.send(());
    });
    assert!(
        finished.recv_timeout(PATIENCE).is_ok(),
        "a call waited for the pool's idle timeout"
    );
}

#[test]
fn a_burst_of_calls_after_a_quiet_spell_runs_on_every_worker_at_once() {
    // Each call waits until all four are running: they pass only if the pool
    // runs them at once, not one after another on the one thread that was
    // idle when they arrived.
    let running = Arc::new((Mutex::new(0usize), std::sync::Condvar::new()));
    let r2 = running.clone();
    let server = Server::new(info(), &["core"], "core")
        .pool_size(4)
        .tool(
            descriptor("meet", None),
            handler(move |c, _| {
                let (count, all_here) = &*r2;
                let mut n = count.lock().unwrap_or_else(|p| p.into_inner());
                *n += 1;
                all_here.notify_all();
                let (n, waited) = all_here
                    .wait_timeout_while(n, PATIENCE, |n| *n < 4)
                    .unwrap_or_else(|p| p.into_inner());
                let met = !waited.timed_out();
                drop(n);
                c.finish(json!({"met": met}))
            }),
        )
        .and_then(|s| {
            s.tool(
                descriptor("quick", None),
                handler(|c, _| c.finish(json!({}))),
            )
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let server = Arc::new(server);
    // One thread made, then left long enough to stop spinning and park.
    assert!(server.call("quick", json!({})).is_ok());
    std::thread::sleep(Duration::from_millis(200));
    let calls: Vec<_> = (0..4)
        .map(|_| {
            let s = server.clone();
            std::thread::spawn(move || s.call("meet", json!({})))
        })
        .collect();
    for c in calls {
        let out = c
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(out.output()["met"], json!(true), "a call ran alone");
    }
}
