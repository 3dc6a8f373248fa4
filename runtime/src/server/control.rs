//! The life of one call in flight: who answers it (exactly once: its
//! handler, its time limit, or nobody once it is cancelled), its progress
//! and log notifications, and the per-connection table that
//! `notifications/cancelled` looks calls up in.
//!
//! Invariant: a call's completion runs at most once. Whoever takes it first
//! (the worker with the handler's result, the watchdog with a timeout, a
//! cancellation with nothing) decides the call's answer; later attempts are
//! no-ops, so a late result never reaches the wire.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};

use serde_json::{Value, json};

use super::output::ToolOutput;
use super::sync::lock;
use super::wire::{Outbox, Outgoing, write_json};
use crate::error::ToolError;

/// One value handed from whoever finishes a call to the thread waiting
/// for it: a mutex and a condition variable, kept in the call's control
/// block (nothing more to allocate; a channel costs more: std's unbounded
/// one zeroes a block of 31 messages on its first send).
struct Slot<T> {
    value: Mutex<Held<T>>,
    ready: Condvar,
    /// Set with the value: read without the lock while spinning.
    filled: AtomicBool,
}

/// What a [`Slot`] holds under its lock.
struct Held<T> {
    value: Option<T>,
    /// Whether the waiter is parked on `ready`: only then does `put` signal
    /// it (a signal is a system call, and a waiter usually finds the value
    /// while it spins).
    parked: bool,
}

impl<T> Slot<T> {
    fn new() -> Slot<T> {
        Slot {
            value: Mutex::new(Held {
                value: None,
                parked: false,
            }),
            ready: Condvar::new(),
            filled: AtomicBool::new(false),
        }
    }

    fn put(&self, v: T) {
        let mut held = self.value.lock().unwrap_or_else(|p| p.into_inner());
        held.value = Some(v);
        self.filled.store(true, Ordering::Release);
        let parked = held.parked;
        drop(held);
        if parked {
            self.ready.notify_one();
        }
    }

    /// The value, once put; `None` once `forsaken` says that no one is left
    /// to put one (the call was dropped).
    fn wait(&self, forsaken: impl Fn() -> bool) -> Option<T> {
        // A call on a worker usually ends within microseconds: spin briefly
        // before parking, as idle workers do (a wake-up costs tens of them).
        super::sync::spin_until(|| self.filled.load(Ordering::Acquire));
        let mut held = self.value.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(v) = held.value.take() {
                return Some(v);
            }
            if forsaken() {
                return None;
            }
            held.parked = true;
            // The others drop their handles without a word: look again now and then.
            held = self
                .ready
                .wait_timeout(held, std::time::Duration::from_millis(20))
                .map(|(v, _)| v)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }
}

/// What finishes a call: its result in, its answer out.
pub(crate) type Completion = Box<dyn FnOnce(Result<ToolOutput, ToolError>) + Send>;

/// How a call is finished.
enum Finish {
    /// By its completion.
    Run(Completion),
    /// By keeping its result for the thread that waits for it
    /// ([`CallControl::wait`]).
    Keep,
}

/// Where a call is in its worker's hands (see [`super::pool`]).
pub(crate) mod phase {
    pub const QUEUED: u8 = 0;
    pub const RUNNING: u8 = 1;
    pub const DONE: u8 = 2;
    /// Its time limit passed while it ran: its worker leaves the pool when
    /// the handler returns.
    pub const ABANDONED: u8 = 3;
}

/// How severe a log message is: MCP's (syslog's) levels, least severe
/// first. A client sets the least it wants to hear (`logging/setLevel`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

/// A connection's least log level, as its client set it (`Debug` until it
/// does): shared with every call it starts.
#[derive(Clone, Debug, Default)]
pub(crate) struct LogThreshold(Arc<AtomicU8>);

impl LogThreshold {
    /// A threshold of its own, at `level` (a 2026-07-28 request's).
    pub(crate) fn at(level: LogLevel) -> LogThreshold {
        let t = LogThreshold::default();
        t.set(level);
        t
    }

    pub(crate) fn set(&self, level: LogLevel) {
        self.0.store(level as u8, Ordering::Relaxed);
    }

    pub(crate) fn admits(&self, level: LogLevel) -> bool {
        level as u8 >= self.0.load(Ordering::Relaxed)
    }
}

/// The `notifications/message` of a log message.
pub(crate) fn log_message(level: LogLevel, data: Value) -> Outgoing {
    let mut text = Vec::with_capacity(128);
    write_json(
        &mut text,
        &json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": level, "data": data}}),
    );
    Outgoing::Notification(text)
}

/// The shared state of one call.
pub(crate) struct CallControl {
    cancelled: AtomicBool,
    pub(crate) phase: AtomicU8,
    completion: Mutex<Option<Finish>>,
    /// The result of a call finished by [`Finish::Keep`].
    kept: Slot<Result<ToolOutput, ToolError>>,
    progress: Option<(Value, Arc<dyn Outbox>)>,
    on_cancel: Mutex<Vec<Box<dyn FnOnce() + Send>>>,
    /// The connection's requests to its client, and where this call's go
    /// (its stream), when the client can be asked.
    pub(crate) client: std::sync::OnceLock<(Arc<super::client::ClientRequests>, Arc<dyn Outbox>)>,
    /// Where the call's questions to the client go when not as requests on
    /// the connection: with a 2026-07-28 call's answer, or into its task.
    pub(crate) asks: std::sync::OnceLock<Arc<dyn super::client::Asks>>,
    /// Where its log messages go, and the least level the client wants:
    /// set for an MCP call with somewhere to send them.
    pub(crate) log: std::sync::OnceLock<(LogThreshold, Arc<dyn Outbox>)>,
    /// The call is answered as MCP (see [`super::Call`]'s `text_item`).
    pub(crate) text_item: bool,
}

impl CallControl {
    /// A call finished by `completion`; `text_item`: it is answered as MCP.
    pub(crate) fn new(
        completion: Completion,
        progress: Option<(Value, Arc<dyn Outbox>)>,
        text_item: bool,
    ) -> Arc<CallControl> {
        CallControl::finished_by(Finish::Run(completion), progress, text_item)
    }

    /// A call whose result a thread waits for ([`CallControl::wait`]).
    pub(crate) fn waited(
        progress: Option<(Value, Arc<dyn Outbox>)>,
        text_item: bool,
    ) -> Arc<CallControl> {
        CallControl::finished_by(Finish::Keep, progress, text_item)
    }

    fn finished_by(
        finish: Finish,
        progress: Option<(Value, Arc<dyn Outbox>)>,
        text_item: bool,
    ) -> Arc<CallControl> {
        Arc::new(CallControl {
            cancelled: AtomicBool::new(false),
            phase: AtomicU8::new(phase::QUEUED),
            completion: Mutex::new(Some(finish)),
            kept: Slot::new(),
            progress,
            on_cancel: Mutex::new(Vec::new()),
            client: std::sync::OnceLock::new(),
            asks: std::sync::OnceLock::new(),
            log: std::sync::OnceLock::new(),
            text_item,
        })
    }

    pub(crate) fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Acquire)
    }

    /// Answers the call with `result`, unless it was answered (or cancelled)
    /// already. True if this was the answer.
    pub(crate) fn complete(&self, result: Result<ToolOutput, ToolError>) -> bool {
        let completion = lock(&self.completion).take();
        match completion {
            Some(Finish::Run(c)) => {
                c(result);
                true
            }
            Some(Finish::Keep) => {
                self.kept.put(result);
                true
            }
            None => false,
        }
    }

    /// The result of a [`CallControl::waited`] call, once it is finished;
    /// `None` when every other holder of the call is gone without finishing
    /// it (it was dropped).
    pub(crate) fn wait(self: &Arc<Self>) -> Option<Result<ToolOutput, ToolError>> {
        self.kept.wait(|| Arc::strong_count(self) == 1)
    }

    /// Cancels the call: no answer will be sent, the handler sees
    /// `is_cancelled()`, and the callbacks it registered run.
    pub(crate) fn cancel(&self) {
        self.cancelled.store(true, Ordering::Release);
        drop(lock(&self.completion).take());
        let callbacks = std::mem::take(&mut *lock(&self.on_cancel));
        for f in callbacks {
            f();
        }
    }

    /// Marks the call cancelled (for the handler's sake) after it was answered
    /// otherwise (a timeout), running the cancel callbacks.
    pub(crate) fn stop(&self) {
        self.cancelled.store(true, Ordering::Release);
        let callbacks = std::mem::take(&mut *lock(&self.on_cancel));
        for f in callbacks {
            f();
        }
    }

    pub(crate) fn on_cancel(&self, f: Box<dyn FnOnce() + Send>) {
        if self.is_cancelled() {
            f();
        } else {
            lock(&self.on_cancel).push(f);
        }
    }

    /// Sends `notifications/message` while the call is unanswered, when the
    /// client wants messages of `level`.
    pub(crate) fn log(&self, level: LogLevel, data: Value) {
        let Some((_, out)) = self.log.get().filter(|(t, _)| t.admits(level)) else {
            return;
        };
        // Held while sending, so that no message follows the response.
        let pending = lock(&self.completion);
        if pending.is_none() {
            return;
        }
        out.send(log_message(level, data));
    }

    /// Sends `notifications/progress` while the call is unanswered.
    pub(crate) fn progress(&self, done: f64, total: Option<f64>, message: Option<&str>) {
        let Some((token, out)) = &self.progress else {
            return;
        };
        // Held while sending, so that no progress follows the response.
        let pending = lock(&self.completion);
        if pending.is_none() || !done.is_finite() {
            return;
        }
        let mut params = json!({"progressToken": token, "progress": done});
        if let Some(t) = total.filter(|t| t.is_finite()) {
            params["total"] = json!(t);
        }
        if let Some(m) = message {
            params["message"] = json!(m);
        }
        let mut text = Vec::with_capacity(128);
        write_json(
            &mut text,
            &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params}),
        );
        out.send(Outgoing::Notification(text));
    }
}

/// The calls of one connection that have not been answered, by request id
/// (its JSON text), for `notifications/cancelled`; and a count of responses
/// not yet handed to the transport, to wait on when the connection closes.
///
/// A call leaves the table just before its response is sent (a client may
/// reuse an id once it has the answer), and the count drops just after.
#[derive(Default)]
pub struct InFlight {
    calls: Mutex<HashMap<String, Weak<CallControl>>>,
    /// Counted without a lock (the caller's thread adds, the worker's
    /// takes away: a lock each way was two more round trips between
    /// cores per call); `drained` is taken only to wake a waiter, and only
    /// when `waiters` says there is one (a signal is a system call).
    unsent: AtomicUsize,
    waiters: AtomicUsize,
    drained_lock: Mutex<()>,
    drained: Condvar,
}

impl std::fmt::Debug for InFlight {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InFlight")
            .field("calls", &lock(&self.calls).len())
            .finish()
    }
}

pub(crate) fn id_key(id: &Value) -> String {
    id.to_string()
}

/// One response not yet sent: counted while it lives (held by a call's
/// completion, so that it goes when the completion runs or is dropped).
pub(crate) struct Unsent(Arc<InFlight>);

impl Drop for Unsent {
    fn drop(&mut self) {
        // Sequentially consistent with the waiter's two steps: either it
        // is counted here, or it sees this response gone.
        if self.0.unsent.fetch_sub(1, Ordering::SeqCst) == 1
            && self.0.waiters.load(Ordering::SeqCst) > 0
        {
            // Under the lock: a waiter between its check and its wait
            // holds it, so it cannot miss this.
            let _held = lock(&self.0.drained_lock);
            self.0.drained.notify_all();
        }
    }
}

impl InFlight {
    /// A response to come: counted until the returned token is dropped.
    pub(crate) fn expect_response(self: &Arc<Self>) -> Unsent {
        self.unsent.fetch_add(1, Ordering::AcqRel);
        Unsent(self.clone())
    }

    /// Registers a call in flight under its request id; the id back (and
    /// nothing registered) when a call with that id is in flight already.
    pub(crate) fn insert(&self, key: String, control: &Arc<CallControl>) -> Result<(), String> {
        match lock(&self.calls).entry(key) {
            std::collections::hash_map::Entry::Occupied(o) => Err(o.key().clone()),
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(Arc::downgrade(control));
                Ok(())
            }
        }
    }

    pub(crate) fn remove(&self, key: &str) {
        lock(&self.calls).remove(key);
    }

    /// Cancels the call with request id `id`, if it is in flight.
    pub(crate) fn cancel(&self, id: &Value) {
        let control = lock(&self.calls).remove(&id_key(id));
        if let Some(c) = control.and_then(|w| w.upgrade()) {
            c.cancel();
        }
    }

    /// Cancels every call in flight (the connection or session ended).
    #[cfg(feature = "http")]
    pub(crate) fn cancel_all(&self) {
        let calls: Vec<_> = lock(&self.calls).drain().map(|(_, c)| c).collect();
        for c in calls.into_iter().filter_map(|w| w.upgrade()) {
            c.cancel();
        }
    }

    pub(crate) fn len(&self) -> usize {
        lock(&self.calls).len()
    }

    /// Blocks until every response was sent (or its call cancelled).
    pub(crate) fn wait_drained(&self) {
        self.waiters.fetch_add(1, Ordering::SeqCst);
        let mut held = lock(&self.drained_lock);
        while self.unsent.load(Ordering::SeqCst) > 0 {
            held = self.drained.wait(held).unwrap_or_else(|p| p.into_inner());
        }
        drop(held);
        self.waiters.fetch_sub(1, Ordering::SeqCst);
    }
}
