//! Tasks (MCP 2025-11-25): a `tools/call` with `params.task` is answered at
//! once with the task it became, and runs as any call does; the client polls
//! `tasks/get`, waits for `tasks/result` (exactly what the call would have
//! answered), lists its tasks and cancels one. Status changes go out as
//! `notifications/tasks/status`. A task is forgotten once its time to live
//! has passed since it was created and it is done.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};

use super::control::CallControl;
use super::wire::{Outbox, Outgoing, plain_error, string_param, write_json};
use crate::error::{ErrorCode, ToolError};

/// `_meta` key of a message that belongs to a task.
pub const RELATED_TASK_KEY: &str = "io.modelcontextprotocol/related-task";

/// How long a task is kept when the client names no time (an hour), and the
/// longest it may ask for (a day), in milliseconds.
const DEFAULT_TTL_MS: u64 = 3_600_000;
const MAX_TTL_MS: u64 = 86_400_000;

/// How often a client is asked to poll, in milliseconds.
const POLL_INTERVAL_MS: u64 = 1_000;

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

/// A call's `params.task`: make it a task, kept `ttl` milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TaskRequest {
    pub(crate) ttl: Option<u64>,
}

impl TaskRequest {
    /// What `params` ask for; `None` without a `task` object.
    pub(crate) fn of(params: &Map<String, Value>) -> Option<TaskRequest> {
        let task = params.get("task")?.as_object()?;
        Some(TaskRequest {
            ttl: task.get("ttl").and_then(Value::as_u64),
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Working,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }
}

struct Task {
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
}

impl Task {
    /// The task as MCP's `Task` object.
    fn json(&self, id: &str) -> Value {
        let mut t = json!({
            "taskId": id,
            "status": self.status.as_str(),
            "createdAt": rfc3339(self.created),
            "lastUpdatedAt": rfc3339(self.updated),
            "ttl": self.ttl_ms,
            "pollInterval": POLL_INTERVAL_MS,
        });
        if let Some(m) = &self.message {
            t["statusMessage"] = json!(m);
        }
        t
    }

    fn expired(&self, now: SystemTime) -> bool {
        self.status != Status::Working
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

    /// A new working task kept for `ttl` milliseconds (the client's wish,
    /// within bounds): its id, and the `CreateTaskResult` that answers the call.
    pub(crate) fn create(
        &self,
        ttl: Option<u64>,
        notify: Option<Arc<dyn Outbox>>,
    ) -> (String, Value) {
        let id = self.new_id();
        let now = SystemTime::now();
        let task = Task {
            status: Status::Working,
            message: None,
            created: now,
            updated: now,
            ttl_ms: ttl.unwrap_or(DEFAULT_TTL_MS).min(MAX_TTL_MS),
            answer: None,
            waiters: Vec::new(),
            control: None,
            notify,
        };
        let created = json!({ "task": task.json(&id) });
        let mut tasks = self.lock();
        tasks.retain(|_, t| !t.expired(now));
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
    /// it is completed, or failed (an error, or a result with `isError`),
    /// and whoever waits for it gets the answer.
    pub(crate) fn finish(&self, id: &str, response: &[u8]) {
        let response: Value = serde_json::from_slice(response).unwrap_or(Value::Null);
        let answer = match (response.get("result"), response.get("error")) {
            (Some(r), _) => Ok(r.clone()),
            (None, Some(e)) => Err(e.clone()),
            (None, None) => Err(json!({"code": -32603, "message": "Internal error: no answer"})),
        };
        let failed = answer
            .as_ref()
            .map_or(true, |r| r.get("isError") == Some(&Value::Bool(true)));
        let mut tasks = self.lock();
        let Some(t) = tasks.get_mut(id).filter(|t| t.status == Status::Working) else {
            return;
        };
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

    /// `tasks/get`: the task.
    pub(crate) fn get(&self, params: &Map<String, Value>) -> Result<Value, ToolError> {
        let id = string_param(params, "taskId")?;
        let tasks = self.lock();
        let t = tasks.get(id).ok_or_else(|| unknown(id))?;
        Ok(t.json(id))
    }

    /// `tasks/list`: every task, oldest first.
    pub(crate) fn list(&self) -> Value {
        let now = SystemTime::now();
        let mut tasks = self.lock();
        tasks.retain(|_, t| !t.expired(now));
        let mut all: Vec<(&String, &Task)> = tasks.iter().collect();
        all.sort_by_key(|(id, t)| (t.created, id.as_str()));
        let list: Vec<Value> = all.into_iter().map(|(id, t)| t.json(id)).collect();
        json!({ "tasks": list })
    }

    /// `tasks/cancel`: the call is cancelled (its handler sees it), and the
    /// task is; a task already done stays as it is (an error).
    pub(crate) fn cancel(&self, params: &Map<String, Value>) -> Result<Value, ToolError> {
        let id = string_param(params, "taskId")?;
        let mut tasks = self.lock();
        let t = tasks.get_mut(id).ok_or_else(|| unknown(id))?;
        if t.status != Status::Working {
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
        settle(id, t);
        let cancelled = t.json(id);
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
            let t = tasks.get_mut(id).ok_or_else(|| unknown(id))?;
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

fn unknown(id: &str) -> ToolError {
    plain_error(
        ErrorCode::InvalidParams,
        format!("Invalid params: no task {id} (it may have expired); list them with tasks/list"),
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
