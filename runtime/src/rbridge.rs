//! The R bridge: tool handlers that forward `tools/call` to R workers, each
//! an `Rscript` process running the worker toolgen generates for a tool set
//! (`r/<set>/worker.R` with its table `tools.json`), speaking
//! newline-delimited JSON-RPC on the worker's stdin and stdout.
//!
//! - Workers are started on first use and kept: each holds one state object
//!   (`.state_env`) that lives between its calls, as RAVE tools expect. With
//!   more than one worker ([`RConfig::workers`]), calls run side by side and
//!   each worker has its own state.
//! - Time limits: a call that runs past its limit is interrupted (SIGINT,
//!   which R turns into an interrupt condition; the worker answers and goes
//!   on, its state kept). A worker that does not answer within
//!   [`RConfig::grace`] after that is killed and a new one started for the
//!   next call; the error says which of the two happened. A client's
//!   cancellation interrupts the call the same way.
//! - A worker that exits (R crashed, the function called `quit()`) fails the
//!   call it was running with its exit status and the last lines it wrote to
//!   stderr; the next call starts a new worker and says so in its diagnostics.
//! - The function's answer is checked against the tool's output schema: a
//!   mismatch is an error naming each place (JSON pointer) and what is wrong.
//! - Tools that are destructive or require approval run only when the
//!   server was started to allow them ([`Approval`]), or when the user
//!   approves the call through the client (MCP elicitation, where the client
//!   supports it); otherwise they are refused, saying how to allow them.
//!
//! Lines a worker writes to stdout that are not JSON (output R code printed
//! around the worker's capture) are passed to stderr, never taken for answers.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::error::{ErrorCode, ToolError};
use crate::server::{Call, Elicited, Server, ToolDescriptor, ToolOutput};

/// A worker's last lines of stderr (and stray stdout), for messages.
type Tail = Arc<Mutex<VecDeque<String>>>;

/// Lines of a worker's stderr kept for error messages.
const STDERR_LINES: usize = 20;

/// How to start R workers.
#[derive(Clone, Debug)]
pub struct RConfig {
    /// The `Rscript` to run (default: `$TOOLGEN_RSCRIPT`, else `Rscript` on `PATH`).
    pub rscript: PathBuf,
    /// The generated worker script (`r/<set>/worker.R`).
    pub script: PathBuf,
    /// Its table (`r/<set>/tools.json`).
    pub table: PathBuf,
    /// R libraries searched before the default ones (`R_LIBS`).
    pub libraries: Vec<PathBuf>,
    /// Workers started at most; each runs one call at a time.
    pub workers: usize,
    /// How long a worker may take to start (load R and jsonlite).
    pub startup_timeout: Duration,
    /// How long an interrupted call may take to end before its worker is killed.
    pub grace: Duration,
}

impl RConfig {
    /// The worker `script` with its table `table`, one worker, default limits.
    pub fn new(script: impl Into<PathBuf>, table: impl Into<PathBuf>) -> RConfig {
        RConfig {
            rscript: std::env::var_os("TOOLGEN_RSCRIPT")
                .map_or_else(|| PathBuf::from("Rscript"), PathBuf::from),
            script: script.into(),
            table: table.into(),
            libraries: Vec::new(),
            workers: 1,
            startup_timeout: Duration::from_secs(60),
            grace: Duration::from_secs(3),
        }
    }
}

/// Whether tools that are destructive or require approval may run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Approval {
    /// Each call asks the user through the client (MCP elicitation); where
    /// the client cannot be asked, or the user says no, -32005, saying how
    /// to allow them.
    #[default]
    Refuse,
    /// Run like any other tool (the server was started to allow them).
    Allow,
}

/// One running `Rscript` worker.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Value>,
    stderr: Tail,
    pid: u32,
}

impl Worker {
    /// The last lines the worker wrote to stderr, for messages.
    fn stderr_tail(&self) -> String {
        tail_text(&self.stderr)
    }

    /// Its exit status, waiting a moment for it (it just closed stdout).
    fn exit_status(&mut self) -> String {
        let until = Instant::now() + Duration::from_millis(500);
        loop {
            match self.child.try_wait() {
                Ok(Some(s)) => return s.to_string(),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(10)),
                Ok(None) => return "still running, its output closed".to_owned(),
                Err(e) => return format!("unknown ({e})"),
            }
        }
    }

    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Closing stdin ends a healthy worker; a stuck one is killed.
        let _ = self.child.try_wait().map(|s| {
            if s.is_none() {
                let _ = self.child.kill();
                let _ = self.child.wait();
            }
        });
    }
}

fn tail_text(lines: &Mutex<VecDeque<String>>) -> String {
    let lines = lines.lock().unwrap_or_else(|p| p.into_inner());
    lines.iter().cloned().collect::<Vec<_>>().join("\n")
}

/// Sends SIGINT to process `pid` (through the POSIX `kill` utility: this
/// workspace has no `unsafe`, and std cannot send signals). False when it
/// could not be sent (not Unix, or no such process).
fn interrupt(pid: u32) -> bool {
    if !cfg!(unix) {
        return false;
    }
    Command::new("kill")
        .args(["-s", "INT", &pid.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A worker's place: the worker (once started) and what happened to the last one.
#[derive(Default)]
struct Slot {
    worker: Option<Worker>,
    /// Why the previous worker is gone, told to the next call.
    lost: Option<String>,
}

/// A pool of R workers for one tool set.
pub struct RBridge {
    config: RConfig,
    slots: Vec<Mutex<Slot>>,
    /// Indexes of slots no call holds.
    free: Mutex<Vec<usize>>,
    freed: Condvar,
    next_id: AtomicU64,
}

/// A slot held by one call, given back when dropped.
struct Held<'b> {
    bridge: &'b RBridge,
    index: usize,
    slot: MutexGuard<'b, Slot>,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        let mut free = lock(&self.bridge.free);
        free.push(self.index);
        self.bridge.freed.notify_one();
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl RBridge {
    pub fn new(config: RConfig) -> RBridge {
        let n = config.workers.max(1);
        RBridge {
            slots: (0..n).map(|_| Mutex::new(Slot::default())).collect(),
            free: Mutex::new((0..n).rev().collect()),
            freed: Condvar::new(),
            next_id: AtomicU64::new(1),
            config,
        }
    }

    pub fn config(&self) -> &RConfig {
        &self.config
    }

    /// Waits for a free worker slot until `deadline`.
    fn hold(&self, deadline: Instant) -> Option<Held<'_>> {
        let mut free = lock(&self.free);
        loop {
            if let Some(index) = free.pop() {
                drop(free);
                return Some(Held {
                    bridge: self,
                    index,
                    slot: lock(&self.slots[index]),
                });
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            free = self
                .freed
                .wait_timeout(free, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// Starts a worker and waits for its `worker/ready`.
    fn start(&self) -> Result<Worker, ToolError> {
        let c = &self.config;
        let mut cmd = Command::new(&c.rscript);
        cmd.arg(&c.script)
            .arg(&c.table)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if !c.libraries.is_empty() {
            let mut paths: Vec<PathBuf> = c.libraries.clone();
            if let Some(existing) = std::env::var_os("R_LIBS") {
                paths.extend(std::env::split_paths(&existing));
            }
            if let Ok(joined) = std::env::join_paths(paths) {
                cmd.env("R_LIBS", joined);
            }
        }
        let mut child = cmd.spawn().map_err(|e| {
            let hint = if e.kind() == std::io::ErrorKind::NotFound {
                "install R (Debian: apt-get install r-base-core r-cran-jsonlite), or set TOOLGEN_RSCRIPT to the Rscript to use"
            } else {
                "check that it can be run"
            };
            ToolError::new(
                ErrorCode::ToolExecution,
                format!(
                    "the R worker could not be started: running `{}` failed: {e}; {hint}",
                    c.rscript.display()
                ),
            )
            .detail("rscript", c.rscript.display().to_string())
        })?;
        let pid = child.id();
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            return Err(ToolError::new(
                ErrorCode::InternalError,
                "the R worker's pipes could not be opened",
            ));
        };
        let (rx, tail) = readers(pid, stdout, stderr)?;
        let mut worker = Worker {
            child,
            stdin,
            lines: rx,
            stderr: tail,
            pid,
        };
        match worker.lines.recv_timeout(c.startup_timeout) {
            Ok(m) if m["method"] == "worker/ready" => Ok(worker),
            Ok(m) => {
                worker.kill();
                Err(ToolError::new(
                    ErrorCode::ToolExecution,
                    format!(
                        "the R worker `{}` is not a toolgen worker: its first message was {m}",
                        c.script.display()
                    ),
                ))
            }
            Err(RecvTimeoutError::Timeout) => {
                let tail = worker.stderr_tail();
                worker.kill();
                Err(ToolError::new(
                    ErrorCode::ToolExecution,
                    format!(
                        "the R worker did not start within {} s{}",
                        c.startup_timeout.as_secs_f64(),
                        with_output(&tail)
                    ),
                ))
            }
            Err(RecvTimeoutError::Disconnected) => {
                let status = worker.exit_status();
                let tail = worker.stderr_tail();
                Err(ToolError::new(
                    ErrorCode::ToolExecution,
                    format!(
                        "the R worker `{} {} {}` exited before it was ready ({status}){}",
                        c.rscript.display(),
                        c.script.display(),
                        c.table.display(),
                        with_output(&tail)
                    ),
                ))
            }
        }
    }

    /// Calls `tool` on a worker, waiting at most `timeout` in all.
    pub fn call(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
        timeout: Duration,
    ) -> Result<ToolOutput, ToolError> {
        self.call_for(&mut Call::new(), tool, arguments, timeout)
    }

    /// [`RBridge::call`] on behalf of a server's call: a cancelled call is
    /// interrupted, and notes (a worker started anew) go to its diagnostics.
    pub fn call_for(
        &self,
        call: &mut Call,
        tool: &str,
        arguments: Map<String, Value>,
        timeout: Duration,
    ) -> Result<ToolOutput, ToolError> {
        let started = Instant::now();
        let deadline = started + timeout;
        let Some(mut held) = self.hold(deadline) else {
            return Err(
                timed_out(tool, timeout, "every R worker was busy until then").for_tool(tool),
            );
        };
        if held
            .slot
            .worker
            .as_mut()
            .is_some_and(|w| !matches!(w.child.try_wait(), Ok(None)))
        {
            if let Some(mut w) = held.slot.worker.take() {
                let status = w.exit_status();
                held.slot.lost = Some(format!(
                    "the previous one exited between calls ({status}){}",
                    with_output(&w.stderr_tail())
                ));
            }
        }
        if held.slot.worker.is_none() {
            let worker = self.start().map_err(|e| e.for_tool(tool))?;
            if let Some(why) = held.slot.lost.take() {
                call.diagnostic(format!(
                    "a new R worker (pid {}) was started, with empty state: {why}",
                    worker.pid
                ));
            }
            held.slot.worker = Some(worker);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut line = serde_json::to_vec(&json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"tool": tool, "arguments": arguments},
        }))
        .map_err(|e| ToolError::new(ErrorCode::InternalError, e.to_string()))?;
        line.push(b'\n');
        let Some(worker) = held.slot.worker.as_mut() else {
            return Err(ToolError::new(ErrorCode::InternalError, "no R worker").for_tool(tool));
        };
        let pid = worker.pid;
        // Interrupted only while R runs this call: a cancel that comes once
        // it is answered would interrupt the worker's next call instead.
        let running = Arc::new(Mutex::new(true));
        let interruptible = running.clone();
        call.on_cancel(move || {
            if *interruptible.lock().unwrap_or_else(|p| p.into_inner()) {
                interrupt(pid);
            }
        });
        if let Err(e) = worker
            .stdin
            .write_all(&line)
            .and_then(|()| worker.stdin.flush())
        {
            return Err(self.lost(&mut held, tool, &format!("writing the call failed: {e}")));
        }
        let outcome = self.wait(&mut held, (id, &*call), tool, deadline, timeout);
        *running.lock().unwrap_or_else(|p| p.into_inner()) = false;
        match outcome {
            Ok(result) => result.and_then(|r| output_of(&r, call)),
            Err(e) => Err(e),
        }
        .map_err(|e| e.for_tool(tool))
    }

    /// Waits for the answer to request `id`: `Ok` with the worker's answer
    /// (a result or its error), or `Err` when the worker failed. What the R
    /// function sends meanwhile (log messages, progress) goes to `call`.
    fn wait(
        &self,
        held: &mut Held<'_>,
        (id, call): (u64, &Call),
        tool: &str,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<Result<Value, ToolError>, ToolError> {
        loop {
            let Some(worker) = held.slot.worker.as_mut() else {
                return Err(ToolError::new(ErrorCode::InternalError, "no R worker"));
            };
            let left = deadline.saturating_duration_since(Instant::now());
            match worker.lines.recv_timeout(left) {
                Ok(m) if m.get("id") == Some(&json!(id)) => {
                    return Ok(answer(&m));
                }
                Ok(m) if m.get("id").is_none() => call.relay(&m),
                // The R function asks the client (`toolgen_elicit`, `toolgen_sample`).
                Ok(m) if m.get("method").is_some() => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    let mut line = serde_json::to_vec(&call.ask_for(&m, left)).unwrap_or_default();
                    line.push(b'\n');
                    let _ = worker
                        .stdin
                        .write_all(&line)
                        .and_then(|()| worker.stdin.flush());
                }
                // A late answer to an interrupted call.
                Ok(_) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.lost(held, tool, "it exited while running the call"));
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(self.overran(held, id, tool, timeout));
                }
            }
        }
    }

    /// The call ran past its limit: interrupt it, and if the worker does
    /// not answer within the grace period, kill it.
    fn overran(&self, held: &mut Held<'_>, id: u64, tool: &str, timeout: Duration) -> ToolError {
        let Some(worker) = held.slot.worker.as_mut() else {
            return timed_out(tool, timeout, "");
        };
        if interrupt(worker.pid) {
            let until = Instant::now() + self.config.grace;
            loop {
                let left = until.saturating_duration_since(Instant::now());
                match worker.lines.recv_timeout(left) {
                    Ok(m) if m.get("id") == Some(&json!(id)) => {
                        return timed_out(
                            tool,
                            timeout,
                            "the R function was interrupted; its worker and the worker's state are kept",
                        );
                    }
                    Ok(_) => {}
                    Err(_) => break,
                }
            }
        }
        if let Some(w) = held.slot.worker.take() {
            w.kill();
        }
        held.slot.lost = Some(format!(
            "the previous one was stopped after `{tool}` ran past its time limit"
        ));
        timed_out(
            tool,
            timeout,
            "the R function did not stop when interrupted, so its worker was stopped; the next call starts a new one, with empty state",
        )
    }

    /// The worker is gone: the error for the call, and a note for the next.
    fn lost(&self, held: &mut Held<'_>, tool: &str, what: &str) -> ToolError {
        let Some(mut w) = held.slot.worker.take() else {
            return ToolError::new(ErrorCode::InternalError, "no R worker");
        };
        let status = w.exit_status();
        let tail = w.stderr_tail();
        w.kill();
        held.slot.lost = Some(format!(
            "the previous one exited ({status}) while running `{tool}`"
        ));
        ToolError::new(
            ErrorCode::ToolExecution,
            format!(
                "the R worker running `{tool}` is gone: {what} ({status}); the next call starts a new worker, with empty state{}",
                with_output(&tail)
            ),
        )
        .detail("exitStatus", status)
        .detail("stderr", tail)
    }
}

/// Threads reading a worker's stdout (JSON lines, to the channel; anything
/// else to stderr) and stderr (passed on, the last lines kept).
fn readers(
    pid: u32,
    stdout: std::process::ChildStdout,
    stderr: std::process::ChildStderr,
) -> Result<(Receiver<Value>, Tail), ToolError> {
    let tail = Arc::new(Mutex::new(VecDeque::new()));
    let (tx, rx) = std::sync::mpsc::channel();
    let stray = tail.clone();
    std::thread::Builder::new()
        .name(format!("r-worker-{pid}-out"))
        .spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                match serde_json::from_str::<Value>(&line) {
                    Ok(v) if v.is_object() => {
                        if tx.send(v).is_err() {
                            break;
                        }
                    }
                    _ => {
                        eprintln!("[R worker {pid}, stdout] {line}");
                        keep(&stray, line);
                    }
                }
            }
        })
        .map_err(|e| ToolError::new(ErrorCode::InternalError, e.to_string()))?;
    let kept = tail.clone();
    std::thread::Builder::new()
        .name(format!("r-worker-{pid}-err"))
        .spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                eprintln!("[R worker {pid}] {line}");
                keep(&kept, line);
            }
        })
        .map_err(|e| ToolError::new(ErrorCode::InternalError, e.to_string()))?;
    Ok((rx, tail))
}

fn keep(lines: &Mutex<VecDeque<String>>, line: String) {
    let mut l = lock(lines);
    if l.len() == STDERR_LINES {
        l.pop_front();
    }
    l.push_back(line);
}

fn with_output(tail: &str) -> String {
    if tail.trim().is_empty() {
        String::new()
    } else {
        format!("; its last output:\n{tail}")
    }
}

fn timed_out(tool: &str, timeout: Duration, what: &str) -> ToolError {
    let mut message = format!(
        "Tool {tool} did not finish within its time limit of {} s",
        timeout.as_secs_f64()
    );
    if !what.is_empty() {
        message.push_str(": ");
        message.push_str(what);
    }
    ToolError::new(ErrorCode::Timeout, message).detail("timeoutSeconds", timeout.as_secs_f64())
}

/// A worker's response: its `result`, or its `error` as a tool error.
fn answer(m: &Value) -> Result<Value, ToolError> {
    if let Some(e) = m.get("error") {
        return Err(
            serde_json::from_value::<ToolError>(e.clone()).unwrap_or_else(|err| {
                ToolError::new(
                    ErrorCode::InternalError,
                    format!("the R worker sent an error toolgen cannot read ({err}): {e}"),
                )
            }),
        );
    }
    m.get("result").cloned().ok_or_else(|| {
        ToolError::new(
            ErrorCode::InternalError,
            format!("the R worker sent a response without `result` or `error`: {m}"),
        )
    })
}

/// The output of a worker's result, with its content blocks; its
/// diagnostics go to the call.
fn output_of(result: &Value, call: &mut Call) -> Result<ToolOutput, ToolError> {
    let content = crate::server::content::content_of(result)
        .map_err(|e| ToolError::new(ErrorCode::InternalError, format!("the R worker sent {e}")))?;
    let mut output =
        ToolOutput::new(result.get("output").cloned().unwrap_or(Value::Null)).with_content(content);
    output.diagnostics = call.diagnostics().to_vec();
    output.diagnostics.extend(
        result
            .get("diagnostics")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned),
    );
    Ok(output)
}

/// How long the user may take to approve a call.
pub const APPROVAL_WAIT: Duration = Duration::from_secs(120);

/// The first sentence (or 200 characters) of a description, for a question.
fn short(description: &str) -> String {
    let first = description
        .split_inclusive(". ")
        .next()
        .unwrap_or(description)
        .trim();
    let mut s: String = first.chars().take(200).collect();
    if s.len() < first.len() {
        s.push('…');
    }
    s
}

/// Asks the user, through the client (MCP elicitation), whether a call of a
/// tool that needs approval may run; refused unless they accept.
fn approve(
    call: &mut Call,
    id: &str,
    what: &str,
    question: &str,
    arguments: &Map<String, Value>,
) -> Result<(), ToolError> {
    let refusal = |why: String| {
        ToolError::new(ErrorCode::PermissionDenied, why)
            .for_tool(id.to_owned())
            .detail("requiresApproval", true)
    };
    let message = format!(
        "{question}\nArguments: {}",
        Value::Object(arguments.clone())
    );
    let form = json!({
        "type": "object",
        "properties": {"approve": {
            "type": "boolean", "title": "Run it",
            "description": "Run the tool with these arguments",
        }},
        "required": ["approve"],
    });
    match call.elicit(&message, form, APPROVAL_WAIT) {
        Elicited::Accepted(c) if c.get("approve") == Some(&Value::Bool(true)) => {
            call.diagnostic("the user approved this call (MCP elicitation)");
            Ok(())
        }
        Elicited::Accepted(_) | Elicited::Declined | Elicited::Cancelled => Err(refusal(format!(
            "tool {id} is {what}, and the user did not approve this call"
        ))),
        Elicited::Unsupported => Err(refusal(format!(
            "tool {id} is {what}, and this server was not started to allow such tools, nor can it ask the user (the client does not support MCP elicitation): ask the user, then restart the server with --allow-dangerous (or Approval::Allow)"
        ))),
        Elicited::Failed(e) => Err(refusal(format!(
            "tool {id} is {what}, and asking the user failed: {e}"
        ))),
        // Not sent: the question is, and the call runs again with the answer.
        Elicited::InputRequired => Err(refusal(format!("tool {id} waits for the user's approval"))),
    }
}

/// Whether a tool may only run with approval: it says so, or it is destructive.
pub fn needs_approval(d: &ToolDescriptor) -> bool {
    d.requires_approval || d.safety_level == "destructive"
}

/// Adds every tool in `tools` to `server`, each forwarded to `bridge` with
/// its time limit (its own, else `default_timeout`). The server still
/// validates arguments and gates tiers before anything reaches R; the
/// bridge checks each answer against the tool's output schema. Tools that
/// need approval ([`needs_approval`]) run only with [`Approval::Allow`].
pub fn forward(
    mut server: Server,
    tools: Vec<ToolDescriptor>,
    bridge: Arc<RBridge>,
    default_timeout: Duration,
    approval: Approval,
) -> Result<Server, String> {
    for mut descriptor in tools {
        let timeout = descriptor.timeout.unwrap_or(default_timeout);
        // The bridge keeps the limit (interrupting R); the server's own
        // watchdog is the backstop, after the grace period.
        descriptor.timeout = Some(timeout + bridge.config.grace + Duration::from_secs(2));
        let output = match &descriptor.output_schema {
            Some(schema) => Some(
                jsonschema::options()
                    .with_draft(crate::server::draft_of(schema))
                    .build(schema)
                    .map_err(|e| format!("tool `{}`: invalid output schema: {e}", descriptor.id))?,
            ),
            None => None,
        };
        let ask = approval == Approval::Refuse && needs_approval(&descriptor);
        if ask {
            // The user's answer may take a while; the watchdog waits for it.
            descriptor.timeout = descriptor.timeout.map(|t| t + APPROVAL_WAIT);
        }
        let what = if descriptor.safety_level == "destructive" {
            "destructive"
        } else {
            "marked as requiring approval"
        };
        let question = format!(
            "Run the tool {}? It is {what}: {}",
            descriptor.id,
            short(&descriptor.description)
        );
        let id = descriptor.id.clone();
        let b = bridge.clone();
        server = server.tool(
            descriptor,
            Arc::new(move |mut call, arguments| {
                if ask {
                    approve(&mut call, &id, what, &question, &arguments)?;
                }
                let out = b.call_for(&mut call, &id, arguments, timeout)?;
                if let Some(v) = &output {
                    let value = out.output();
                    let violations: Vec<Value> = v
                        .iter_errors(&value)
                        .map(|e| json!({"path": e.instance_path().as_str(), "message": e.to_string()}))
                        .collect();
                    if let Some(first) = violations.first() {
                        return Err(ToolError::new(
                            ErrorCode::ToolExecution,
                            format!(
                                "the R function behind {id} answered with a value that does not match the tool's output schema: at `{}`: {} (fix the function, or the spec's output schema)",
                                first["path"].as_str().unwrap_or(""),
                                first["message"].as_str().unwrap_or("")
                            ),
                        )
                        .for_tool(id.clone())
                        .detail("violations", violations));
                    }
                }
                Ok(out)
            }),
        )?;
    }
    Ok(server)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_rscript_is_a_clear_error() {
        let mut config = RConfig::new("worker.R", "tools.json");
        config.rscript = PathBuf::from("/nonexistent/Rscript");
        let e = RBridge::new(config)
            .call("t", Map::new(), Duration::from_secs(1))
            .err();
        assert!(
            e.as_ref()
                .is_some_and(|e| e.message.contains("could not be started")
                    && e.message.contains("TOOLGEN_RSCRIPT")),
            "{e:?}"
        );
    }

    #[test]
    fn answers_are_read() {
        assert_eq!(
            answer(&json!({"id": 1, "result": {"output": 1}})).ok(),
            Some(json!({"output": 1}))
        );
        let e = answer(&json!({"id": 1, "error": {"code": -32000, "message": "m",
            "data": {"errorType": "execution", "details": {}}}}));
        assert_eq!(e.err().map(|e| e.code), Some(ErrorCode::ToolExecution));
        assert!(answer(&json!({"id": 1})).is_err());
    }
}
