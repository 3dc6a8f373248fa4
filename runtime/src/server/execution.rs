//! Where and how a call runs: checked on the thread that read it, then run
//! on the pool (or inline), and answered exactly once, by id, when it
//! finishes, times out or is refused as busy; or never, once cancelled.

use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use serde_json::{Map, Value};

use super::control::{CallControl, Completion, LogLevel, LogThreshold, id_key};
use super::core::{Execution, Lanes, Server, Session};
use super::entry::{Checked, Entry, WireArguments};
use super::output::{self, ToolOutput};
use super::pool::{Job, Lane, outcome, timeout_error};
use super::rounds::Rounds;
use super::task::{Era, TaskAsks, TaskRequest};
use super::tool::Call;
use super::typed::unknown_tool;
use super::wire::{self, Dialect, Outbox, Outgoing, plain_error, write_json};
use crate::error::{ErrorCode, ToolError};

/// What became of a request given to [`Server::submit`].
#[derive(Debug, PartialEq, Eq)]
pub enum Submitted {
    /// Answered at once: the response (JSON text, no line end).
    Answered(Vec<u8>),
    /// A call now running: its response (and any progress notifications)
    /// will be sent to the request's outbox.
    Pending,
    /// A notification: nothing to answer.
    Nothing,
}

/// A `tools/call` read off the wire, in either dialect.
pub(crate) struct WireCall<'a> {
    pub(crate) id: Value,
    pub(crate) tool: Cow<'a, str>,
    pub(crate) arguments: WireArguments<'a>,
    pub(crate) dialect: Dialect,
    /// `params._meta.progressToken`, when the client asked for progress.
    pub(crate) progress: Option<Value>,
    /// A 2026-07-28 request's least log level (`_meta`, [`wire::LOG_LEVEL_KEY`]):
    /// such a request gets log messages only when it asks.
    pub(crate) log_level: Option<LogLevel>,
    /// `params.task` of an MCP call: run it as a task.
    pub(crate) task: Option<TaskRequest>,
    /// A 2026-07-28 call's questions to the client and its answers so far.
    pub(crate) rounds: Option<Arc<Rounds>>,
}

/// How a call another MCP library received talks back while it runs, and
/// who gets its result (see [`Server::start_hosted`]).
#[cfg_attr(not(feature = "rmcp"), allow(dead_code))]
pub(crate) struct Hosted {
    /// The request's progress token, and where its notifications go.
    pub(crate) progress: Option<(Value, Arc<dyn Outbox>)>,
    /// The least level of log messages wanted, and where they go.
    pub(crate) log: Option<(LogThreshold, Arc<dyn Outbox>)>,
    /// Who puts the call's questions to the client.
    pub(crate) asks: Option<Arc<dyn super::client::Asks>>,
    pub(crate) completion: Completion,
    /// A full queue blocks the caller until there is room, instead of
    /// answering "busy".
    pub(crate) wait_when_full: bool,
}

/// Why a hosted call did not start.
#[derive(Debug)]
#[cfg_attr(not(feature = "rmcp"), allow(dead_code))]
pub(crate) enum NotStarted {
    /// No such tool, or one that runs only as a task: a protocol error.
    Unknown(ToolError),
    /// Refused by the checks (tier, arguments): the call's result.
    Refused(ToolError),
}

/// How a call its caller waits for runs: where its progress goes, who
/// answers its requests to the client, and whether a full queue makes the
/// caller wait for room (or answers "busy").
#[derive(Default)]
struct Waited {
    progress: Option<(Value, Arc<dyn Outbox>)>,
    /// Where its log messages go (an MCP call with somewhere to send them).
    log: Option<(LogThreshold, Arc<dyn Outbox>)>,
    client: Option<(Arc<super::client::ClientRequests>, Arc<dyn Outbox>)>,
    rounds: Option<Arc<Rounds>>,
    wait_when_full: bool,
    /// The call is answered as MCP (see [`Call`]'s `text_item`).
    text_item: bool,
}

impl Server {
    fn lanes(&self) -> &Lanes {
        self.lanes.get_or_init(|| Lanes {
            concurrent: Lane::new("worker", self.pool_size, self.queue_limit, self.spin),
            serial: Lane::new("serial", 1, self.queue_limit, self.spin),
        })
    }

    /// Calls a tool and waits for its result: existence, tier, argument
    /// validation, time limit, panic isolation.
    pub fn call(&self, tool: &str, arguments: Value) -> Result<ToolOutput, ToolError> {
        let entry = self.entry(tool).ok_or_else(|| unknown_tool(tool))?;
        let args = self.check(&entry, tool, WireArguments::Value(arguments), None)?;
        self.run_and_wait(&entry, args, Waited::default())
    }

    /// Runs a checked call and waits for its result.
    fn run_and_wait(
        &self,
        entry: &Arc<Entry>,
        args: Checked<&str>,
        waited: Waited,
    ) -> Result<ToolOutput, ToolError> {
        let Waited {
            progress,
            log,
            client,
            rounds,
            wait_when_full,
            text_item,
        } = waited;
        if self.execution == Execution::Inline && progress.is_none() && rounds.is_none() {
            // Nothing can cancel an inline call (it is not in flight on any
            // connection) or hear its progress: no control to make. Its log
            // messages go out on this thread, before its response.
            return self.run_inline(entry, args, Call::answered_as(text_item, log));
        }
        let control = CallControl::waited(progress, text_item);
        if let Some(client) = client {
            let _ = control.client.set(client);
        }
        if let Some(rounds) = rounds {
            let _ = control.asks.set(rounds);
        }
        if let Some(log) = log {
            let _ = control.log.set(log);
        }
        self.launch(entry, args, control.clone(), wait_when_full);
        let tool = &entry.descriptor.id;
        control.wait().unwrap_or_else(|| {
            Err(plain_error(
                ErrorCode::InternalError,
                format!("Internal error in tool {tool}: the call was dropped"),
            )
            .for_tool(tool))
        })
    }

    /// Runs a checked call: inline, or on its lane. A full queue answers
    /// "busy" at once, or (`wait`) blocks the caller until there is room.
    fn launch(
        &self,
        entry: &Arc<Entry>,
        args: Checked<&str>,
        control: Arc<CallControl>,
        wait: bool,
    ) {
        if self.execution == Execution::Inline {
            let call = Call::controlled(control.clone());
            control.complete(self.run_inline(entry, args, call));
            return;
        }
        let limit = self.timeout_of(&entry.descriptor);
        let lanes = self.lanes();
        let lane = if self.serial || entry.serial {
            &lanes.serial
        } else {
            &lanes.concurrent
        };
        let job = Job {
            control,
            entry: entry.clone(),
            arguments: args.into_owned(),
            limit,
        };
        let submitted = if wait {
            lane.submit_waiting(job);
            Ok(())
        } else {
            lane.submit(job)
        };
        if let Err(job) = submitted {
            let busy = plain_error(
                ErrorCode::ToolExecution,
                format!(
                    "Server busy: {} calls are already waiting for {} workers; retry {} later",
                    self.queue_limit,
                    lane.size(),
                    job.entry.descriptor.id
                ),
            )
            .for_tool(&job.entry.descriptor.id)
            .detail("busy", true)
            .detail("queueLimit", self.queue_limit as u64);
            job.control.complete(Err(busy));
        }
    }

    /// Runs a checked call on this thread: its panic caught, its time limit
    /// checked when it returns (its result then discarded).
    fn run_inline(
        &self,
        entry: &Entry,
        args: Checked<&str>,
        call: Call,
    ) -> Result<ToolOutput, ToolError> {
        let limit = self.timeout_of(&entry.descriptor);
        let started = limit.map(|_| std::time::Instant::now());
        let result = catch_unwind(AssertUnwindSafe(|| args.run(entry, call)));
        let tool = &entry.descriptor.id;
        match limit.zip(started).filter(|(l, s)| s.elapsed() > *l) {
            Some((limit, _)) => Err(timeout_error(tool, limit)),
            None => outcome(tool, result),
        }
    }

    /// Starts a `tools/call` read off the wire. Checks run here; the handler
    /// runs on the pool and its response and progress notifications go to
    /// `reply` (with [`Execution::Inline`], the response is returned at
    /// once).
    ///
    /// No `reply`: the caller blocks until the call is answered and holds
    /// the session meanwhile ([`Server::handle`]), so nothing can cancel the
    /// call or reuse its id. The response is returned at once (written on
    /// the caller's thread; on a worker, only the handler runs), the call is
    /// not entered in the session's table of calls in flight, and its
    /// progress notifications go nowhere.
    pub(crate) fn start_call(
        &self,
        session: &Session,
        call: WireCall<'_>,
        reply: Option<&Arc<dyn Outbox>>,
    ) -> Submitted {
        let WireCall {
            id,
            tool,
            arguments,
            dialect,
            progress,
            log_level,
            task,
            rounds,
        } = call;
        let Some(entry) = self.entry(&tool) else {
            if dialect == Dialect::Envelope {
                let e = unknown_tool(&tool);
                return Submitted::Answered(self.call_answer(dialect, &id, &tool, false, Err(e)));
            }
            // MCP: an unknown tool is a protocol error, not a tool result.
            let e = plain_error(ErrorCode::InvalidParams, format!("Unknown tool: {tool}"))
                .for_tool(tool.as_ref());
            return Submitted::Answered(wire::error_bytes(&id, &e));
        };
        match entry.task_support.decide(dialect, task, &tool, &id) {
            Err(refused) => return Submitted::Answered(refused),
            Ok(Some(task)) => {
                return self.start_task(session, &entry, &tool, arguments, task, &id);
            }
            Ok(None) => {}
        }
        let args = match self.check(&entry, &tool, arguments, session.tier.as_deref()) {
            Ok(args) => args,
            Err(e) => {
                return Submitted::Answered(self.call_answer(dialect, &id, &tool, false, Err(e)));
            }
        };
        let wraps = entry.wraps_output;
        let progress = progress.zip(reply).map(|(token, out)| (token, out.clone()));
        // The connection's level, or a modern request's own; the envelope
        // has no log messages.
        let log = reply.and_then(|out| {
            let threshold = match dialect {
                Dialect::Mcp => session.log_level.clone(),
                Dialect::Modern => LogThreshold::at(log_level?),
                Dialect::Envelope => return None,
            };
            Some((threshold, out.clone()))
        });
        // A 2026-07-28 call asks with its answer, never on the connection.
        let client = session
            .client
            .clone()
            .filter(|_| dialect != Dialect::Modern);
        let reply = match reply {
            Some(reply) if self.execution == Execution::Worker => reply,
            _ => {
                // Nothing runs in the background: no call of this session is in flight.
                let waited = Waited {
                    progress,
                    log,
                    client: client.zip(reply.cloned()),
                    rounds: rounds.clone(),
                    wait_when_full: session.wait_when_full,
                    text_item: dialect.has_text_item(),
                };
                let result = self.run_and_wait(&entry, args, waited);
                let stamp = self.stamp_for(dialect);
                let (asked, stamp) = (rounds.as_deref(), stamp.as_deref());
                return Submitted::Answered(answer(
                    dialect, &id, &tool, wraps, stamp, asked, result,
                ));
            }
        };
        let key = id_key(&id);
        let tool = tool.into_owned();
        let calls = session.calls.clone();
        let out = reply.clone();
        let stamp = self.stamp_for(dialect);
        let completion_key = key.clone();
        // Counts the response until it is sent, or the call cancelled (the
        // completion dropped unrun).
        let unsent = session.calls.expect_response();
        let asking = rounds.clone();
        let completion: Completion = Box::new(move |result| {
            let (asked, stamp) = (asking.as_deref(), stamp.as_deref());
            let text = answer(dialect, &id, &tool, wraps, stamp, asked, result);
            // Out of the table first: the client may reuse the id once it has the answer.
            calls.remove(&completion_key);
            out.send(Outgoing::Response(text));
            drop(unsent);
        });
        let control = CallControl::new(completion, progress, dialect.has_text_item());
        if let Some(client) = client {
            let _ = control.client.set((client, reply.clone()));
        }
        if let Some(rounds) = rounds {
            let _ = control.asks.set(rounds);
        }
        if let Some(log) = log {
            let _ = control.log.set(log);
        }
        // Checked as the call is registered (one lock, not two): a call whose
        // id is still running gets an error, its completion dropped unrun.
        if let Err(key) = session.calls.insert(key, &control) {
            let e = plain_error(
                ErrorCode::InvalidRequest,
                format!("Invalid Request: a call with id {key} is still running; use another id"),
            );
            // The id's JSON text, read back (`id` went into the completion).
            let id: Value = serde_json::from_str(&key).unwrap_or(Value::Null);
            return Submitted::Answered(wire::error_bytes(&id, &e));
        }
        self.launch(&entry, args, control, session.wait_when_full);
        Submitted::Pending
    }

    /// Starts a `tools/call` that another MCP library received (rmcp, see
    /// `crate::rmcp`): the tool must exist and take plain calls (else
    /// [`NotStarted::Unknown`], a protocol error), and its arguments pass the
    /// checks every call passes (else [`NotStarted::Refused`], the call's
    /// result). It then runs on the pool as any call does, within its time
    /// limit, and `hosted.completion` gets its result (nothing, once the
    /// returned control is cancelled).
    #[cfg_attr(not(feature = "rmcp"), allow(dead_code))]
    pub(crate) fn start_hosted(
        &self,
        tool: &str,
        arguments: Value,
        hosted: Hosted,
    ) -> Result<Arc<CallControl>, NotStarted> {
        let Hosted {
            progress,
            log,
            asks,
            completion,
            wait_when_full,
        } = hosted;
        let entry = self.entry(tool).ok_or_else(|| {
            NotStarted::Unknown(
                plain_error(ErrorCode::InvalidParams, format!("Unknown tool: {tool}"))
                    .for_tool(tool),
            )
        })?;
        entry
            .task_support
            .admits(false, tool)
            .map_err(NotStarted::Unknown)?;
        let args = self
            .check(&entry, tool, WireArguments::Value(arguments), None)
            .map_err(NotStarted::Refused)?;
        let control = CallControl::new(completion, progress, true);
        if let Some(asks) = asks {
            let _ = control.asks.set(asks);
        }
        if let Some(log) = log {
            let _ = control.log.set(log);
        }
        self.launch(&entry, args, control.clone(), wait_when_full);
        Ok(control)
    }

    /// Whether `tool`'s output goes out as `{"result": ...}` (see
    /// [`super::structured`]); `false` for a tool it does not have.
    #[cfg_attr(not(feature = "rmcp"), allow(dead_code))]
    pub(crate) fn wraps_output(&self, tool: &str) -> bool {
        self.entry(tool).is_some_and(|e| e.wraps_output)
    }

    /// Starts an MCP call as a task and answers with the task: the call runs
    /// as any other (its arguments checked first: a refusal is the task's
    /// answer), and its answer is kept for `tasks/result` (2025-11-25) or
    /// `tasks/get` (the extension, whose tasks ask the client through
    /// their `inputRequests`).
    fn start_task(
        &self,
        session: &Session,
        entry: &Arc<Entry>,
        tool: &str,
        arguments: WireArguments<'_>,
        task: TaskRequest,
        id: &Value,
    ) -> Submitted {
        let (dialect, notify) = match task.era {
            Era::Core => (Dialect::Mcp, session.notify.clone()),
            // The extension's status notifications need `subscriptions/listen`.
            Era::Extension => (Dialect::Modern, None),
        };
        let (task_id, mut created) = self.tasks.create(&task, notify);
        match self.check(entry, tool, arguments, session.tier.as_deref()) {
            Err(e) => {
                let answer = output::call_answer(dialect, &Value::Null, tool, false, None, Err(e));
                self.tasks.finish(&task_id, &answer);
            }
            Ok(args) => {
                let (tasks, finished) = (self.tasks.clone(), task_id.clone());
                let (tool, wraps) = (tool.to_owned(), entry.wraps_output);
                let completion: Completion = Box::new(move |result| {
                    let answer =
                        output::call_answer(dialect, &Value::Null, &tool, wraps, None, result);
                    tasks.finish(&finished, &answer);
                });
                let control = CallControl::new(completion, None, true);
                if task.era == Era::Extension {
                    let asks = TaskAsks {
                        tasks: self.tasks.clone(),
                        id: task_id.clone(),
                        can: task.can,
                    };
                    let _ = control.asks.set(Arc::new(asks));
                }
                self.tasks.attach(&task_id, &control);
                self.launch(entry, args, control, session.wait_when_full);
            }
        }
        if let Some(stamp) = self.stamp_for(dialect) {
            wire::stamp_result(&mut created, &stamp);
        }
        let mut out = Vec::with_capacity(256);
        wire::write_response(&mut out, id, |out| write_json(out, &created));
        Submitted::Answered(out)
    }

    /// The response to a call in `dialect`.
    pub(crate) fn call_answer(
        &self,
        dialect: Dialect,
        id: &Value,
        tool: &str,
        wraps: bool,
        result: Result<ToolOutput, ToolError>,
    ) -> Vec<u8> {
        let stamp = self.stamp_for(dialect);
        output::call_answer(dialect, id, tool, wraps, stamp.as_deref(), result)
    }

    /// What a 2026-07-28 result carries in `_meta`: the server's identity.
    pub(crate) fn stamp_for(&self, dialect: Dialect) -> Option<Arc<[u8]>> {
        (dialect == Dialect::Modern).then(|| {
            self.modern_stamp
                .get_or_init(|| {
                    let mut text = Vec::new();
                    write_json(&mut text, &super::modern::server_info(self));
                    Arc::from(text)
                })
                .clone()
        })
    }

    /// Handles one request and waits for its response (the line it answers
    /// with, newline included), or `None` for a notification. Progress
    /// notifications are not kept. For transports that answer one request
    /// at a time; [`Server::serve`] answers as calls finish.
    pub fn handle(&self, session: &mut Session, request: &[u8]) -> Option<Vec<u8>> {
        line_of(self.submit_as(session, request, None))
    }
}

/// The response to a call: its result, or, when it asked the client a
/// question under 2026-07-28 that has no answer yet, the question.
fn answer(
    dialect: Dialect,
    id: &Value,
    tool: &str,
    wraps: bool,
    stamp: Option<&[u8]>,
    asked: Option<&Rounds>,
    result: Result<ToolOutput, ToolError>,
) -> Vec<u8> {
    asked
        .and_then(|r| r.input_required(id, stamp))
        .unwrap_or_else(|| output::call_answer(dialect, id, tool, wraps, stamp, result))
}

/// The line a request submitted without an outbox answers with (it is
/// answered at once, see [`Server::start_call`]), or `None`.
pub(super) fn line_of(submitted: Submitted) -> Option<Vec<u8>> {
    match submitted {
        Submitted::Answered(mut out) => {
            out.push(b'\n');
            Some(out)
        }
        Submitted::Nothing => None,
        Submitted::Pending => {
            // Without an outbox nothing is left pending.
            debug_assert!(
                false,
                "a request submitted without an outbox was left pending"
            );
            None
        }
    }
}

/// What a method answers: a value, or a result already written as JSON text
/// (a tool call's, which copies the output's text as it is).
pub(super) enum Answer {
    Value(Value),
    /// A `tools/list` page: each tool's entry as one line of JSON (a
    /// generated tool's members in the order its spec wrote them), then the
    /// page's other members (an object).
    Page {
        tools: Vec<String>,
        rest: Value,
    },
    /// A tool call to start (answered when it finishes).
    Call(super::execution::WireCall<'static>),
    /// `tasks/result`, with its params: answered when the task is done.
    TaskResult(Map<String, Value>),
}

impl From<Value> for Answer {
    fn from(v: Value) -> Answer {
        Answer::Value(v)
    }
}

impl Answer {
    /// Writes the answer as a result's JSON.
    pub(super) fn write(&self, out: &mut Vec<u8>) {
        match self {
            Answer::Value(v) => write_json(out, v),
            Answer::Page { tools, rest } => {
                out.extend_from_slice(b"{\"tools\":[");
                for (i, t) in tools.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(t.as_bytes());
                }
                out.push(b']');
                for (k, v) in rest.as_object().into_iter().flatten() {
                    out.push(b',');
                    write_json(out, k);
                    out.push(b':');
                    write_json(out, v);
                }
                out.push(b'}');
            }
            Answer::Call(_) | Answer::TaskResult(_) => out.extend_from_slice(b"null"),
        }
    }
}

/// A `tools/call`'s parts, for [`Answer::Call`] (the id is filled in by the
/// caller), or why a 2026-07-28 retry is refused (see [`Rounds::of`]).
pub(super) fn wire_call(
    dialect: Dialect,
    tool: &str,
    params: &mut Map<String, Value>,
) -> Result<WireCall<'static>, ToolError> {
    let progress = params
        .get("_meta")
        .and_then(|m| m.get("progressToken"))
        .filter(|t| t.is_string() || t.is_i64() || t.is_u64())
        .cloned();
    let log_level = params
        .get("_meta")
        .and_then(|m| m.get(wire::LOG_LEVEL_KEY))
        .and_then(|l| serde_json::from_value(l.clone()).ok())
        .filter(|_| dialect == Dialect::Modern);
    let (rounds, task) = match dialect {
        Dialect::Modern => {
            let can = params
                .get("_meta")
                .and_then(|m| m.get(super::wire::CLIENT_CAPABILITIES_KEY));
            let rounds = Rounds::of(tool, can, params)?.map(Arc::new);
            (rounds, TaskRequest::offered(can))
        }
        Dialect::Mcp => (None, TaskRequest::of(params)),
        Dialect::Envelope => (None, None),
    };
    Ok(WireCall {
        id: Value::Null,
        tool: tool.to_owned().into(),
        arguments: WireArguments::Value(params.remove("arguments").unwrap_or(Value::Null)),
        dialect,
        progress,
        log_level,
        task,
        rounds,
    })
}
