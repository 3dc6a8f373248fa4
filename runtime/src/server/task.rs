//! Tasks, in two eras.
//!
//! MCP 2025-11-25: a `tools/call` with `params.task` is answered at once
//! with the task it became, and runs as any call does; the client polls
//! `tasks/get`, waits for `tasks/result` (exactly what the call would have
//! answered), lists its tasks and cancels one. Status changes go out as
//! `notifications/tasks/status`.
//!
//! MCP 2026-07-28's tasks extension (`io.modelcontextprotocol/tasks`,
//! SEP-2663): the server decides. A call of a tool whose listing says it may
//! run long (`execution.taskSupport`), from a client that declares the
//! extension in the request's capabilities, is answered with a
//! `CreateTaskResult` (`resultType: "task"`); `tasks/get` answers the task
//! with its result or error inlined once it is done, and, while its handler
//! waits for the user or the client's model, with the questions
//! (`inputRequests`), which `tasks/update` answers. `tasks/cancel` is an
//! acknowledgement; there is no `tasks/list` nor `tasks/result`.
//!
//! A task is seen only by requests of its own era, and forgotten once its
//! time to live has passed since it was created and it is done.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};

use super::client::{Asked, Asks, Capabilities};
use super::control::CallControl;
use super::wire::{CLIENT_CAPABILITIES_KEY, Refusal};
use super::wire::{Dialect, Outbox, Outgoing, plain_error, string_param, write_json};
use crate::error::{ErrorCode, ToolError};

/// `_meta` key of a message that belongs to a task.
pub const RELATED_TASK_KEY: &str = "io.modelcontextprotocol/related-task";

/// The tasks extension of MCP 2026-07-28, as capabilities name it.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// -32021: the request needs a capability the client did not declare.
pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;

/// How long a task is kept when the client names no time (an hour), and the
/// longest it may ask for (a day), in milliseconds.
const DEFAULT_TTL_MS: u64 = 3_600_000;
const MAX_TTL_MS: u64 = 86_400_000;

/// How often a client is asked to poll, in milliseconds.
const POLL_INTERVAL_MS: u64 = 1_000;

/// How many tasks are kept at most: past this, creating one forgets the
/// task that finished longest ago, so that a client cannot fill memory
/// with tasks it never polls (running ones are bounded by the pool's queue).
const MAX_KEPT: usize = 10_000;

/// How a tool may be called as a task: its listing's `execution.taskSupport`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TaskSupport {
    /// Never (MCP's default).
    #[default]
    Forbidden,
    /// As a task or as a plain call.
    Optional,
    /// Only as a task.
    Required,
}

impl TaskSupport {
    /// Whether `tool` may be called so (as a task or not): a -32601 error
    /// when its listing says otherwise.
    pub(crate) fn admits(self, as_task: bool, tool: &str) -> Result<(), ToolError> {
        let why = match (as_task, self) {
            (true, TaskSupport::Forbidden) => "cannot be called as a task",
            (false, TaskSupport::Required) => "must be called as a task (`params.task`)",
            _ => return Ok(()),
        };
        Err(plain_error(
            ErrorCode::MethodNotFound,
            format!("Method not found: tool {tool} {why}"),
        )
        .for_tool(tool))
    }

    /// Whether a call in `dialect` becomes a task: as the client asked
    /// (2025-11-25's `params.task`, refused where the listing forbids it or
    /// requires it and it is missing), or as the server decides (2026-07-28:
    /// a tool that may be a task is one when the client declared the
    /// extension; one that must be, for a client that did not, is refused).
    /// `Err`: the response that refuses the call `id`.
    pub(crate) fn decide(
        self,
        dialect: Dialect,
        task: Option<TaskRequest>,
        tool: &str,
        id: &Value,
    ) -> Result<Option<TaskRequest>, Vec<u8>> {
        match dialect {
            Dialect::Mcp => match self.admits(task.is_some(), tool) {
                Ok(()) => Ok(task),
                Err(e) => Err(super::wire::error_bytes(id, &e)),
            },
            Dialect::Modern => match (task, self) {
                (_, TaskSupport::Forbidden) => Ok(None),
                (None, TaskSupport::Required) => {
                    let why = format!("tool {tool} runs only as a task");
                    let error = missing_extension(&why).to_json();
                    Err(
                        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "error": error}))
                            .unwrap_or_default(),
                    )
                }
                (task, _) => Ok(task),
            },
            Dialect::Envelope => Ok(None),
        }
    }

    /// What a tool's `tools/list` entry says.
    pub(crate) fn of_listing(listing: &Value) -> TaskSupport {
        let support = listing
            .pointer("/execution/taskSupport")
            .and_then(Value::as_str);
        match support {
            Some("optional") => TaskSupport::Optional,
            Some("required") => TaskSupport::Required,
            _ => TaskSupport::Forbidden,
        }
    }
}

/// Which protocol made a task (and alone sees it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Era {
    /// MCP 2025-11-25's tasks.
    Core,
    /// MCP 2026-07-28's tasks extension.
    Extension,
}

/// A call that may become a task: a 2025-11-25 call's `params.task` (kept
/// `ttl` milliseconds), or a 2026-07-28 call from a client that declared
/// the extension (and can be asked what `can` says while the task runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TaskRequest {
    pub(crate) ttl: Option<u64>,
    pub(crate) era: Era,
    pub(crate) can: Capabilities,
}

impl TaskRequest {
    /// What 2025-11-25 `params` ask for; `None` without a `task` object.
    pub(crate) fn of(params: &Map<String, Value>) -> Option<TaskRequest> {
        let task = params.get("task")?.as_object()?;
        Some(TaskRequest {
            ttl: task.get("ttl").and_then(Value::as_u64),
            era: Era::Core,
            can: Capabilities::default(),
        })
    }

    /// What a 2026-07-28 client with these request `capabilities` allows:
    /// `None` unless they declare the extension.
    pub(crate) fn offered(capabilities: Option<&Value>) -> Option<TaskRequest> {
        declares_extension(capabilities).then(|| TaskRequest {
            ttl: None,
            era: Era::Extension,
            can: Capabilities::of(capabilities),
        })
    }
}

/// Whether request capabilities declare the tasks extension.
fn declares_extension(capabilities: Option<&Value>) -> bool {
    capabilities
        .and_then(|c| c.get("extensions"))
        .and_then(|e| e.get(TASKS_EXTENSION))
        .is_some_and(Value::is_object)
}

/// The refusal of a request that needs the tasks extension, from a client
/// that did not declare it (-32021, naming it as the extension asks).
fn missing_extension(why: &str) -> Refusal {
    let mut r = Refusal::new(
        MISSING_CLIENT_CAPABILITY,
        format!(
            "Missing required client capability: {why}; declare the tasks extension in the \
             request's `_meta[\"{CLIENT_CAPABILITIES_KEY}\"].extensions[\"{TASKS_EXTENSION}\"]`"
        ),
    );
    r.data = Some(json!({"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}));
    r
}

/// Whether a 2026-07-28 request of `method` (with `params`) may be served:
/// the extension's methods need the client to declare it, and 2025-11-25's
/// `tasks/list` and `tasks/result` are not the extension's.
pub(crate) fn admitted(method: &str, params: &Map<String, Value>) -> Result<(), Refusal> {
    match method {
        "tasks/get" | "tasks/update" | "tasks/cancel" => {
            let capabilities = params
                .get("_meta")
                .and_then(|m| m.get(CLIENT_CAPABILITIES_KEY));
            if declares_extension(capabilities) {
                Ok(())
            } else {
                Err(missing_extension(&format!(
                    "{method} is a method of the tasks extension"
                )))
            }
        }
        "tasks/list" | "tasks/result" => Err(Refusal::new(
            ErrorCode::MethodNotFound.code(),
            format!(
                "Method not found: {method} is not part of the tasks extension (2026-07-28); \
                 poll tasks/get, which carries the result once the task is done"
            ),
        )),
        _ => Ok(()),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Working,
    /// The handler waits for answers to the task's `inputRequests` (the extension).
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }

    /// Not done yet.
    fn active(self) -> bool {
        matches!(self, Status::Working | Status::InputRequired)
    }
}

struct Task {
    era: Era,
    status: Status,
    message: Option<String>,
    created: SystemTime,
    updated: SystemTime,
    ttl_ms: u64,
    /// What the call answered, once it has: its result or its error.
    answer: Option<Result<Value, Value>>,
    /// `tasks/result` requests waiting for the answer: their ids and outboxes.
    waiters: Vec<(Value, Arc<dyn Outbox>)>,
    /// The call, to cancel it.
    control: Option<Arc<CallControl>>,
    /// Where its status notifications go (the connection's).
    notify: Option<Arc<dyn Outbox>>,
    /// The extension: the handler's questions not answered yet, by key.
    asking: Map<String, Value>,
    /// The extension: answers `tasks/update` brought, by key, until the
    /// handler takes them.
    answers: Map<String, Value>,
    /// How many questions the handler asked (keys are never reused).
    asked: u64,
}

impl Task {
    /// The task as its era's `Task` object.
    fn json(&self, id: &str) -> Value {
        let (ttl, poll) = match self.era {
            Era::Core => ("ttl", "pollInterval"),
            Era::Extension => ("ttlMs", "pollIntervalMs"),
        };
        let mut t = json!({
            "taskId": id,
            "status": self.status.as_str(),
            "createdAt": rfc3339(self.created),
            "lastUpdatedAt": rfc3339(self.updated),
            ttl: self.ttl_ms,
            poll: POLL_INTERVAL_MS,
        });
        if let Some(m) = &self.message {
            t["statusMessage"] = json!(m);
        }
        t
    }

    /// The extension's `DetailedTask`: the task with what its status
    /// carries (its questions, its result or its error).
    fn detailed(&self, id: &str) -> Value {
        let mut t = self.json(id);
        match (self.status, &self.answer) {
            (Status::InputRequired, _) => t["inputRequests"] = Value::Object(self.asking.clone()),
            (Status::Completed, Some(Ok(result))) => t["result"] = result.clone(),
            (Status::Failed, Some(Err(error))) => t["error"] = error.clone(),
            _ => {}
        }
        t
    }

    fn expired(&self, now: SystemTime) -> bool {
        !self.status.active()
            && self.waiters.is_empty()
            && now > self.created + Duration::from_millis(self.ttl_ms)
    }
}

/// The tasks of a server.
#[derive(Default)]
pub(crate) struct Tasks {
    tasks: Mutex<BTreeMap<String, Task>>,
    /// Signalled when a task is done, for `tasks/result` without an outbox.
    done: Condvar,
    made: AtomicU64,
}

impl Tasks {
    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, Task>> {
        self.tasks.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A new working task of `request`'s era kept for its `ttl`
    /// milliseconds (the client's wish, within bounds): its id, and the
    /// `CreateTaskResult` that answers the call.
    pub(crate) fn create(
        &self,
        request: &TaskRequest,
        notify: Option<Arc<dyn Outbox>>,
    ) -> (String, Value) {
        let id = self.new_id();
        let now = SystemTime::now();
        let ttl = request.ttl;
        let task = Task {
            era: request.era,
            status: Status::Working,
            message: None,
            created: now,
            updated: now,
            ttl_ms: ttl.unwrap_or(DEFAULT_TTL_MS).min(MAX_TTL_MS),
            answer: None,
            waiters: Vec::new(),
            control: None,
            notify,
            asking: Map::new(),
            answers: Map::new(),
            asked: 0,
        };
        let created = match task.era {
            Era::Core => json!({ "task": task.json(&id) }),
            Era::Extension => {
                let mut t = task.json(&id);
                t["resultType"] = json!("task");
                t
            }
        };
        let mut tasks = self.lock();
        tasks.retain(|_, t| !t.expired(now));
        if tasks.len() >= MAX_KEPT {
            let oldest = tasks
                .iter()
                .filter(|(_, t)| !t.status.active() && t.waiters.is_empty())
                .min_by_key(|(_, t)| t.updated)
                .map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                tasks.remove(&oldest);
            }
        }
        tasks.insert(id.clone(), task);
        (id, created)
    }

    /// An id no one can guess from another: a count and random bits.
    fn new_id(&self) -> String {
        use std::hash::{BuildHasher, Hasher};
        let n = self.made.fetch_add(1, Ordering::Relaxed);
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(n);
        format!("task-{n}-{:016x}", h.finish())
    }

    /// Remembers the call of task `id`, to cancel it.
    pub(crate) fn attach(&self, id: &str, control: &Arc<CallControl>) {
        if let Some(t) = self.lock().get_mut(id) {
            t.control = Some(control.clone());
        }
    }

    /// Task `id`'s call answered `response` (a JSON-RPC response's text):
    /// it is completed, or failed (an error; under 2025-11-25, a result with
    /// `isError` too), and whoever waits for it gets the answer.
    pub(crate) fn finish(&self, id: &str, response: &[u8]) {
        let response: Value = serde_json::from_slice(response).unwrap_or(Value::Null);
        let answer = match (response.get("result"), response.get("error")) {
            (Some(r), _) => Ok(r.clone()),
            (None, Some(e)) => Err(e.clone()),
            (None, None) => Err(json!({"code": -32603, "message": "Internal error: no answer"})),
        };
        let tool_error = |r: &Value| r.get("isError") == Some(&Value::Bool(true));
        let mut tasks = self.lock();
        let Some(t) = tasks.get_mut(id).filter(|t| t.status.active()) else {
            return;
        };
        let failed = match &answer {
            Err(_) => true,
            Ok(r) => t.era == Era::Core && tool_error(r),
        };
        t.asking.clear();
        t.status = if failed {
            Status::Failed
        } else {
            Status::Completed
        };
        t.updated = SystemTime::now();
        t.control = None;
        if let Err(e) = &answer {
            t.message = e.get("message").and_then(Value::as_str).map(str::to_owned);
        }
        t.answer = Some(answer);
        settle(id, t);
        drop(tasks);
        self.done.notify_all();
    }

    /// Task `params.taskId` of `era`, in `tasks`.
    fn find<'t, 'p>(
        tasks: &'t mut BTreeMap<String, Task>,
        params: &'p Map<String, Value>,
        era: Era,
    ) -> Result<(&'p str, &'t mut Task), ToolError> {
        let id = string_param(params, "taskId")?;
        match tasks.get_mut(id) {
            Some(t) if t.era == era => Ok((id, t)),
            _ => Err(unknown(id, era)),
        }
    }

    /// `tasks/get`: the task (the extension's: with what its status carries).
    pub(crate) fn get(&self, params: &Map<String, Value>, era: Era) -> Result<Value, ToolError> {
        let mut tasks = self.lock();
        let (id, t) = Tasks::find(&mut tasks, params, era)?;
        Ok(match era {
            Era::Core => t.json(id),
            Era::Extension => t.detailed(id),
        })
    }

    /// `tasks/update` (the extension): the client's answers to the task's
    /// questions, by key; an answer to a question not outstanding is
    /// ignored, as the extension says.
    pub(crate) fn update(&self, params: &Map<String, Value>) -> Result<Value, ToolError> {
        let responses = params.get("inputResponses").and_then(Value::as_object);
        let Some(responses) = responses else {
            return Err(plain_error(
                ErrorCode::InvalidParams,
                "Invalid params: `inputResponses` must be an object of answers, keyed as the \
                 task's `inputRequests`",
            ));
        };
        let mut tasks = self.lock();
        let (_, t) = Tasks::find(&mut tasks, params, Era::Extension)?;
        for (key, answer) in responses.iter().filter(|(_, a)| a.is_object()) {
            if t.asking.remove(key).is_some() {
                t.answers.insert(key.clone(), answer.clone());
            }
        }
        if t.status == Status::InputRequired && t.asking.is_empty() {
            t.status = Status::Working;
            t.updated = SystemTime::now();
        }
        drop(tasks);
        self.done.notify_all();
        Ok(json!({}))
    }

    /// The handler of task `id` asks the client `question` (the extension):
    /// the task waits for input with the question among its
    /// `inputRequests`, until `tasks/update` answers it, the task is
    /// cancelled, or `limit` passes.
    fn ask(&self, id: &str, question: Value, limit: Duration) -> Asked {
        let deadline = Instant::now().checked_add(limit);
        let mut tasks = self.lock();
        let Some(t) = tasks.get_mut(id).filter(|t| t.status.active()) else {
            return Asked::Failed("the task was cancelled".to_owned());
        };
        t.asked += 1;
        let key = format!("input-{}", t.asked);
        t.asking.insert(key.clone(), question);
        t.status = Status::InputRequired;
        t.updated = SystemTime::now();
        loop {
            let Some(t) = tasks.get_mut(id) else {
                return Asked::Failed("the task is gone".to_owned());
            };
            if let Some(answer) = t.answers.remove(&key) {
                return Asked::Answer(answer);
            }
            if !t.status.active() {
                return Asked::Failed("the task was cancelled before the client answered".into());
            }
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            if left == Some(Duration::ZERO) {
                t.asking.remove(&key);
                if t.asking.is_empty() {
                    t.status = Status::Working;
                    t.updated = SystemTime::now();
                }
                let secs = limit.as_secs_f64();
                return Asked::Failed(format!("the client did not answer within {secs} s"));
            }
            tasks = match left {
                Some(left) => match self.done.wait_timeout(tasks, left) {
                    Ok((g, _)) => g,
                    Err(p) => p.into_inner().0,
                },
                None => self.done.wait(tasks).unwrap_or_else(|p| p.into_inner()),
            };
        }
    }

    /// `tasks/list`: every task of 2025-11-25, oldest first.
    pub(crate) fn list(&self) -> Value {
        let now = SystemTime::now();
        let mut tasks = self.lock();
        tasks.retain(|_, t| !t.expired(now));
        let mut all: Vec<(&String, &Task)> =
            tasks.iter().filter(|(_, t)| t.era == Era::Core).collect();
        all.sort_by_key(|(id, t)| (t.created, id.as_str()));
        let list: Vec<Value> = all.into_iter().map(|(id, t)| t.json(id)).collect();
        json!({ "tasks": list })
    }

    /// `tasks/cancel`: the call is cancelled (its handler sees it), and the
    /// task is; a task already done stays as it is (an error under
    /// 2025-11-25; the extension's cancel is an acknowledgement).
    pub(crate) fn cancel(&self, params: &Map<String, Value>, era: Era) -> Result<Value, ToolError> {
        let mut tasks = self.lock();
        let (id, t) = Tasks::find(&mut tasks, params, era)?;
        if era == Era::Extension && !t.status.active() {
            return Ok(json!({}));
        }
        if !t.status.active() {
            return Err(plain_error(
                ErrorCode::InvalidParams,
                format!(
                    "Invalid params: task {id} cannot be cancelled: it is already {}",
                    t.status.as_str()
                ),
            ));
        }
        t.status = Status::Cancelled;
        t.message = Some("Cancelled by the client".to_owned());
        t.updated = SystemTime::now();
        t.answer = Some(Err(json!({
            "code": -32602,
            "message": format!("Invalid params: task {id} was cancelled; it has no result"),
        })));
        if let Some(control) = t.control.take() {
            control.cancel();
        }
        t.asking.clear();
        settle(id, t);
        let cancelled = match era {
            Era::Core => t.json(id),
            Era::Extension => json!({}),
        };
        drop(tasks);
        self.done.notify_all();
        Ok(cancelled)
    }

    /// `tasks/result` of request `request`: the response once the task is
    /// done, at once when it is; else `None`, the response going to `reply`
    /// when it is done (without `reply`, this waits for it).
    pub(crate) fn result(
        &self,
        params: &Map<String, Value>,
        request: &Value,
        reply: Option<&Arc<dyn Outbox>>,
    ) -> Result<Option<Vec<u8>>, ToolError> {
        let id = string_param(params, "taskId")?;
        let mut tasks = self.lock();
        loop {
            let t = tasks
                .get_mut(id)
                .filter(|t| t.era == Era::Core)
                .ok_or_else(|| unknown(id, Era::Core))?;
            if let Some(answer) = &t.answer {
                return Ok(Some(response(request, id, answer)));
            }
            if let Some(reply) = reply {
                t.waiters.push((request.clone(), reply.clone()));
                return Ok(None);
            }
            tasks = self.done.wait(tasks).unwrap_or_else(|p| p.into_inner());
        }
    }
}

/// Sends task `id`'s new status to the connection, then its answer to
/// whoever waits for it.
fn settle(id: &str, t: &mut Task) {
    if let Some(out) = &t.notify {
        let mut text = Vec::with_capacity(256);
        write_json(
            &mut text,
            &json!({"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": t.json(id)}),
        );
        out.send(Outgoing::Notification(text));
    }
    if let Some(answer) = &t.answer {
        for (request, out) in t.waiters.drain(..) {
            out.send(Outgoing::Response(response(&request, id, answer)));
        }
    }
}

/// The response to `tasks/result` request `request`: the call's answer, a
/// result marked as task `id`'s.
fn response(request: &Value, id: &str, answer: &Result<Value, Value>) -> Vec<u8> {
    let body = match answer {
        Ok(result) => {
            let mut result = result.clone();
            if let Value::Object(r) = &mut result {
                let meta = r.entry("_meta").or_insert_with(|| json!({}));
                if let Value::Object(m) = meta {
                    m.insert(RELATED_TASK_KEY.to_owned(), json!({ "taskId": id }));
                }
            }
            json!({"jsonrpc": "2.0", "id": request, "result": result})
        }
        Err(error) => json!({"jsonrpc": "2.0", "id": request, "error": error}),
    };
    let mut out = Vec::with_capacity(256);
    write_json(&mut out, &body);
    out
}

/// A task's questions to the client, for its handler's [`super::Call`].
pub(crate) struct TaskAsks {
    pub(crate) tasks: Arc<Tasks>,
    pub(crate) id: String,
    pub(crate) can: Capabilities,
}

impl Asks for TaskAsks {
    fn can(&self) -> Capabilities {
        self.can
    }

    fn ask(&self, question: Value, limit: Duration) -> Asked {
        self.tasks.ask(&self.id, question, limit)
    }
}

fn unknown(id: &str, era: Era) -> ToolError {
    let hint = match era {
        Era::Core => "list them with tasks/list",
        Era::Extension => "a task is known by the id its CreateTaskResult gave",
    };
    plain_error(
        ErrorCode::InvalidParams,
        format!("Invalid params: no task {id} (it may have expired); {hint}"),
    )
}

/// `t` as an RFC 3339 time in UTC, to the millisecond.
fn rfc3339(t: SystemTime) -> String {
    let since = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Days to a civil date (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3_600,
        rest % 3_600 / 60,
        rest % 60,
        since.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_796_219_045_123);
        assert_eq!(rfc3339(t), "2026-12-02T13:44:05.123Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn task_support_is_read_from_the_listing() {
        let of = |e: &str| TaskSupport::of_listing(&serde_json::from_str(e).unwrap_or_default());
        assert_eq!(
            of(r#"{"execution":{"taskSupport":"optional"}}"#),
            TaskSupport::Optional
        );
        assert_eq!(
            of(r#"{"execution":{"taskSupport":"required"}}"#),
            TaskSupport::Required
        );
        assert_eq!(of(r#"{"execution":{}}"#), TaskSupport::Forbidden);
        assert_eq!(of("{}"), TaskSupport::Forbidden);
    }
}
