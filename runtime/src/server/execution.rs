//! Where handlers run: on an abandonable worker thread (time limits, panic
//! isolation), or inline on the calling thread.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::Duration;

use serde_json::{Map, Value};

use super::{Entry, Handler, Server, ToolOutput, plain_error};
use crate::error::{ErrorCode, ToolError};

type Job = (Handler, Map<String, Value>);

type Outcome = std::thread::Result<Result<ToolOutput, ToolError>>;

/// The thread that runs handlers, so that a hung handler can be abandoned.
/// One pair of channels serves every call: calls take turns (the server
/// holds the worker's lock for a whole call), and a worker abandoned after a
/// timeout goes away with its channels, so a late result is never read.
pub(super) struct Worker {
    jobs: Sender<Job>,
    results: Receiver<Outcome>,
}

impl Worker {
    fn spawn() -> Worker {
        let (jobs, job_rx): (Sender<Job>, Receiver<Job>) = channel();
        let (result_tx, results) = channel();
        let spawned = std::thread::Builder::new()
            .name("tool-worker".to_owned())
            .spawn(move || {
                while let Ok((handler, args)) = receive(&job_rx, None) {
                    let result = catch_unwind(AssertUnwindSafe(|| handler(args)));
                    if result_tx.send(result).is_err() {
                        return;
                    }
                }
            });
        match spawned {
            Ok(_) => Worker { jobs, results },
            // No thread: sending fails, and the caller reports it.
            Err(_) => Worker {
                jobs: channel().0,
                results,
            },
        }
    }
}

/// How long the worker and the caller spin before they park: a parked thread
/// costs a futex wake-up (tens of microseconds) per call, spinning costs a core
/// only while calls arrive back to back.
const SPIN: Duration = Duration::from_micros(50);

/// The next message of `rx`: spin briefly, then block, for `timeout` in all
/// (`None`: as long as it takes). The clock is read every 32 polls, not on
/// each: reading it costs more than a poll.
fn receive<T>(rx: &Receiver<T>, timeout: Option<Duration>) -> Result<T, RecvTimeoutError> {
    let start = std::time::Instant::now();
    let spin = timeout.map_or(SPIN, |t| SPIN.min(t));
    for polls in 1u32.. {
        match rx.try_recv() {
            Ok(v) => return Ok(v),
            Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                return Err(RecvTimeoutError::Disconnected);
            }
            Err(std::sync::mpsc::TryRecvError::Empty) => {
                if polls % 32 == 0 && start.elapsed() >= spin {
                    break;
                }
                std::hint::spin_loop();
            }
        }
    }
    match timeout {
        None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        Some(t) => rx.recv_timeout(t.saturating_sub(start.elapsed())),
    }
}

/// Where handlers run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Execution {
    /// On a worker thread: a handler that hangs past its time limit is abandoned
    /// (-32003) and the server goes on with a fresh worker. Costs a cross-thread
    /// handoff per call.
    #[default]
    Worker,
    /// On the calling thread: fastest; panics are still caught (-32603), but a
    /// time limit is only detected when the handler returns (its result is then
    /// discarded and -32003 returned). For handlers known not to hang.
    Inline,
}

impl Server {
    pub(super) fn run(
        &self,
        entry: &Entry,
        args: Map<String, Value>,
    ) -> Result<ToolOutput, ToolError> {
        let tool = &entry.descriptor.id;
        let limit = self.timeout_of(&entry.descriptor);
        if self.execution == Execution::Inline {
            let started = std::time::Instant::now();
            let result = catch_unwind(AssertUnwindSafe(|| (entry.handler)(args)));
            if let Some(limit) = limit.filter(|l| started.elapsed() > *l) {
                return Err(timeout_error(tool, limit));
            }
            return finish(tool, result);
        }
        let mut slot = self.worker.lock().unwrap_or_else(|p| p.into_inner());
        let worker = slot.get_or_insert_with(Worker::spawn);
        if let Err(std::sync::mpsc::SendError(job)) =
            worker.jobs.send((entry.handler.clone(), args))
        {
            // The worker thread is gone (it could not be spawned, or died): replace it.
            *worker = Worker::spawn();
            let _ = worker.jobs.send(job);
        }
        match receive(&worker.results, limit) {
            Ok(r) => finish(tool, r),
            Err(RecvTimeoutError::Timeout) => {
                // Abandon the hung worker; the next call gets a fresh one.
                *slot = None;
                Err(timeout_error(tool, limit.unwrap_or_default()))
            }
            Err(RecvTimeoutError::Disconnected) => {
                *slot = None;
                Err(plain_error(
                    ErrorCode::InternalError,
                    format!("Internal error in tool {tool}: the worker stopped"),
                )
                .for_tool(tool))
            }
        }
    }
}

fn timeout_error(tool: &str, limit: Duration) -> ToolError {
    plain_error(
        ErrorCode::Timeout,
        format!(
            "Tool execution timeout: {tool} did not finish in {} s",
            limit.as_secs_f64()
        ),
    )
    .for_tool(tool)
    .detail("timeoutSeconds", limit.as_secs_f64())
}

/// A handler's result, or its panic, as the call's result.
fn finish(tool: &str, result: Outcome) -> Result<ToolOutput, ToolError> {
    match result {
        Ok(r) => r.map_err(|e| {
            if e.data.as_ref().and_then(|d| d.tool.as_ref()).is_none() {
                e.for_tool(tool)
            } else {
                e
            }
        }),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "the handler panicked".to_owned());
            Err(plain_error(
                ErrorCode::InternalError,
                format!("Internal error in tool {tool}"),
            )
            .for_tool(tool)
            .detail("panic", msg))
        }
    }
}
