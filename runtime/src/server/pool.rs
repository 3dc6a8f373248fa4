//! The worker pool: lanes of threads that run handlers, and a watchdog that
//! answers calls whose time limit passed.
//!
//! - A lane is a bounded queue and up to `size` threads, spawned as work
//!   arrives. The concurrent lane has the server's pool size; the serial
//!   lane one thread, for tools that must not run side by side.
//! - A full queue refuses at once ([`Lane::submit`] gives the job back), so
//!   that a flood of calls gets "busy" answers instead of unbounded memory.
//! - A handler that overruns its limit is answered by the watchdog
//!   (-32003), told it is cancelled, and abandoned: its thread leaves the
//!   lane when the handler returns, and the lane may spawn a replacement, so
//!   a hung handler costs one thread, never the pool's capacity.

use std::collections::{BinaryHeap, VecDeque};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use super::control::{CallControl, phase};
use super::entry::{Checked, Entry};
use super::output::ToolOutput;
use super::sync::{lock, spin_until};
use super::tool::Call;
use super::wire::plain_error;
use crate::error::{ErrorCode, ToolError};

/// One handler to run.
pub(crate) struct Job {
    pub(crate) control: Arc<CallControl>,
    pub(crate) entry: Arc<Entry>,
    pub(crate) arguments: Checked<String>,
    pub(crate) limit: Option<Duration>,
}

impl Job {
    /// Runs the handler on this thread (panics caught) and answers the call,
    /// calling `answering` first (or at once when there is nothing to run).
    /// Returns false when the call was abandoned meanwhile (its time limit
    /// passed): the caller's thread must then leave its lane, and
    /// `answering` is not called (the thread takes no more jobs).
    fn run(self, answering: impl FnOnce()) -> bool {
        let Job {
            control,
            entry,
            arguments,
            limit,
        } = self;
        if control
            .phase
            .compare_exchange(
                phase::QUEUED,
                phase::RUNNING,
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_err()
        {
            answering();
            return true; // answered or cancelled while queued
        }
        if let Some(limit) = limit {
            watchdog().watch(Instant::now() + limit, &control, &entry, limit);
        }
        let call = Call::controlled(control.clone());
        let result = catch_unwind(AssertUnwindSafe(|| arguments.run(&entry, call)));
        let kept = control
            .phase
            .compare_exchange(
                phase::RUNNING,
                phase::DONE,
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_ok();
        if kept {
            answering();
        }
        control.complete(outcome(&entry.descriptor.id, result));
        kept
    }
}

/// A handler's result, or its panic, as the call's result.
pub(crate) fn outcome(
    tool: &str,
    result: std::thread::Result<Result<ToolOutput, ToolError>>,
) -> Result<ToolOutput, ToolError> {
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

pub(crate) fn timeout_error(tool: &str, limit: Duration) -> ToolError {
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

struct LaneState {
    queue: VecDeque<Job>,
    /// Threads of this lane (abandoned ones no longer count).
    threads: usize,
    /// Threads looking for work: spinning or parked.
    idle: usize,
    /// Threads parked on `ready`: the only ones a new job must wake (a
    /// spinning one sees `pending`; a wake-up is a system call per job).
    parked: usize,
    /// Senders parked on `room` (`submit_waiting` with the queue full).
    blocked: usize,
}

/// A bounded queue and the threads that drain it.
pub(crate) struct Lane {
    name: &'static str,
    size: usize,
    capacity: usize,
    /// An idle thread spins before it parks.
    spin: bool,
    state: Mutex<LaneState>,
    ready: Condvar,
    /// Signalled when a worker takes a job off the queue.
    room: Condvar,
    /// The queue's length, read without the lock by spinning workers.
    pending: AtomicUsize,
    /// Threads answering a call, about to look for the next job: a job
    /// queued meanwhile is theirs (the caller of a sequence of calls sends
    /// the next the moment it has the answer; waking a parked thread for it
    /// costs more than the call). Counted without the lane's lock: a lock
    /// per call on the worker's side was one more round trip between cores.
    finishing: AtomicUsize,
}

impl Lane {
    /// A lane of at most `size` threads and `capacity` calls waiting; `spin`:
    /// an idle thread spins briefly before it parks (see [`Lane::work`]).
    pub(crate) fn new(name: &'static str, size: usize, capacity: usize, spin: bool) -> Arc<Lane> {
        Arc::new(Lane {
            name,
            size: size.max(1),
            capacity,
            spin,
            state: Mutex::new(LaneState {
                queue: VecDeque::new(),
                threads: 0,
                idle: 0,
                parked: 0,
                blocked: 0,
            }),
            ready: Condvar::new(),
            room: Condvar::new(),
            pending: AtomicUsize::new(0),
            finishing: AtomicUsize::new(0),
        })
    }

    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// Queues `job`, or gives it back when the queue is full.
    pub(crate) fn submit(self: &Arc<Lane>, job: Job) -> Result<(), Job> {
        let state = lock(&self.state);
        // Work waiting beyond what idle threads take at once counts against the limit.
        if state.queue.len().saturating_sub(state.idle) >= self.capacity {
            return Err(job);
        }
        self.push(state, job);
        Ok(())
    }

    /// Queues `job`, waiting for room when the queue is full (a stream
    /// transport: the sender is pushed back instead of refused).
    pub(crate) fn submit_waiting(self: &Arc<Lane>, job: Job) {
        let mut state = lock(&self.state);
        while state.queue.len().saturating_sub(state.idle) >= self.capacity {
            state.blocked += 1;
            state = self.room.wait(state).unwrap_or_else(|p| p.into_inner());
            state.blocked -= 1;
        }
        self.push(state, job);
    }

    fn push(self: &Arc<Lane>, mut state: std::sync::MutexGuard<'_, LaneState>, job: Job) {
        state.queue.push_back(job);
        self.pending.fetch_add(1, Ordering::Relaxed);
        // A spinning or finishing thread takes a job without being told:
        // wake a parked one only for the jobs beyond those, and add a thread
        // for the jobs beyond what every idle and finishing one takes (a
        // burst arriving while one thread was idle ran on that one alone).
        let waiting = state.queue.len();
        let finishing = self.finishing.load(Ordering::Acquire);
        let spinning = state.idle - state.parked + finishing;
        let wake = state.parked > 0 && waiting > spinning;
        let spawn = waiting > state.idle + finishing && state.threads < self.size;
        if spawn {
            state.threads += 1;
        }
        drop(state);
        if wake {
            self.ready.notify_one();
        }
        if spawn {
            self.spawn();
        }
    }

    fn spawn(self: &Arc<Lane>) {
        let lane = self.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("tool-{}", self.name))
            .spawn(move || lane.work());
        if spawned.is_err() {
            // No thread: the queued work waits for the next spawn.
            lock(&self.state).threads -= 1;
        }
    }

    fn work(self: Arc<Lane>) {
        // The lane the watchdog takes this thread off, should a call on it
        // be abandoned: set once for the thread's life, not on every call.
        ABANDON.with(|slot| *slot.borrow_mut() = Some(Arc::downgrade(&self)));
        let mut finished = false;
        loop {
            let job = {
                let mut state = lock(&self.state);
                if std::mem::take(&mut finished) {
                    self.finishing.fetch_sub(1, Ordering::AcqRel);
                }
                loop {
                    if let Some(job) = state.queue.pop_front() {
                        self.pending.fetch_sub(1, Ordering::Relaxed);
                        if state.blocked > 0 {
                            self.room.notify_one();
                        }
                        break job;
                    }
                    state.idle += 1;
                    // Spin briefly before parking: a parked thread costs a
                    // wake-up (tens of microseconds) per call, spinning costs
                    // a core only while calls arrive back to back. One idle
                    // thread spins at a time, the others park at once: a
                    // second spinner would take the core the caller needs
                    // (two of them and the caller on two cores doubled the
                    // time of a call).
                    if self.spin && state.idle - state.parked == 1 {
                        drop(state);
                        let found = spin_until(|| self.pending.load(Ordering::Relaxed) > 0);
                        state = lock(&self.state);
                        // A job queued between the spin and the lock was
                        // signalled to no one: look before parking, or it
                        // would wait for the idle timeout (30 s).
                        if found || !state.queue.is_empty() {
                            state.idle -= 1;
                            continue;
                        }
                    }
                    state.parked += 1;
                    let (s, timeout) = self
                        .ready
                        .wait_timeout(state, IDLE_EXIT)
                        .unwrap_or_else(|p| p.into_inner());
                    state = s;
                    state.parked -= 1;
                    state.idle -= 1;
                    if timeout.timed_out() && state.queue.is_empty() {
                        state.threads -= 1;
                        return;
                    }
                }
            };
            let kept = job.run(|| {
                self.finishing.fetch_add(1, Ordering::AcqRel);
            });
            if !kept {
                return; // abandoned: the watchdog already took this thread off the lane
            }
            finished = true;
        }
    }

    /// Takes an abandoned thread off the lane, and spawns a replacement when
    /// work is waiting.
    fn abandon_one(self: &Arc<Lane>) {
        let mut state = lock(&self.state);
        state.threads -= 1;
        if !state.queue.is_empty() && state.threads < self.size {
            state.threads += 1;
            drop(state);
            self.spawn();
        }
    }
}

/// Idle threads leave after this long, so an idle server holds no threads.
const IDLE_EXIT: Duration = Duration::from_secs(30);

thread_local! {
    static ABANDON: std::cell::RefCell<Option<Weak<Lane>>> = const { std::cell::RefCell::new(None) };
}

/// A deadline the watchdog keeps.
struct Deadline {
    at: Instant,
    control: Weak<CallControl>,
    lane: Option<Weak<Lane>>,
    /// The tool (its id names it in the timeout's message).
    entry: Arc<Entry>,
    limit: Duration,
}

impl PartialEq for Deadline {
    fn eq(&self, o: &Self) -> bool {
        self.at == o.at
    }
}
impl Eq for Deadline {}
impl PartialOrd for Deadline {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Deadline {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        o.at.cmp(&self.at) // earliest first in the max-heap
    }
}

/// One thread for every time limit in the process.
struct Watchdog {
    deadlines: Mutex<Deadlines>,
    changed: Condvar,
}

/// The deadlines of calls with a time limit, earliest first. A call that
/// ends leaves its deadline behind (a heap cannot drop one in the middle):
/// when the heap has doubled since it was last pruned, the deadlines of
/// calls that are gone are dropped, so a busy server holds about as many
/// as it has calls in flight, not every call of the last time limit.
struct Deadlines {
    heap: BinaryHeap<Deadline>,
    prune_at: usize,
}

/// The size below which the heap is never pruned.
const PRUNE_MIN: usize = 1024;

fn watchdog() -> &'static Watchdog {
    static WATCHDOG: OnceLock<&'static Watchdog> = OnceLock::new();
    WATCHDOG.get_or_init(|| {
        let w: &'static Watchdog = Box::leak(Box::new(Watchdog {
            deadlines: Mutex::new(Deadlines {
                heap: BinaryHeap::new(),
                prune_at: PRUNE_MIN,
            }),
            changed: Condvar::new(),
        }));
        let _ = std::thread::Builder::new()
            .name("tool-watchdog".to_owned())
            .spawn(move || w.run());
        w
    })
}

impl Watchdog {
    fn watch(&self, at: Instant, control: &Arc<CallControl>, entry: &Arc<Entry>, limit: Duration) {
        let lane = ABANDON.with(|slot| slot.borrow().clone());
        let mut d = lock(&self.deadlines);
        if d.heap.len() >= d.prune_at {
            d.heap.retain(|e| e.control.strong_count() > 0);
            d.prune_at = (2 * d.heap.len()).max(PRUNE_MIN);
        }
        let earliest = d.heap.peek().is_none_or(|e| at < e.at);
        d.heap.push(Deadline {
            at,
            control: Arc::downgrade(control),
            lane,
            entry: entry.clone(),
            limit,
        });
        drop(d);
        if earliest {
            self.changed.notify_one();
        }
    }

    fn run(&self) {
        let mut d = lock(&self.deadlines);
        loop {
            let now = Instant::now();
            while d.heap.peek().is_some_and(|e| e.at <= now) {
                if let Some(due) = d.heap.pop() {
                    drop(d);
                    expire(due);
                    d = lock(&self.deadlines);
                }
            }
            d = match d.heap.peek().map(|e| e.at) {
                Some(at) => {
                    self.changed
                        .wait_timeout(d, at.saturating_duration_since(now))
                        .unwrap_or_else(|p| p.into_inner())
                        .0
                }
                None => self.changed.wait(d).unwrap_or_else(|p| p.into_inner()),
            };
        }
    }
}

/// A deadline passed: answer the call with a timeout if it is still running.
fn expire(due: Deadline) {
    let Some(control) = due.control.upgrade() else {
        return; // finished and gone
    };
    if control.phase.load(Ordering::Acquire) != phase::RUNNING {
        return;
    }
    if control.complete(Err(timeout_error(&due.entry.descriptor.id, due.limit))) {
        control.stop();
        let abandoned = control
            .phase
            .compare_exchange(
                phase::RUNNING,
                phase::ABANDONED,
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_ok();
        if abandoned {
            if let Some(lane) = due.lane.and_then(|l| l.upgrade()) {
                lane.abandon_one();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A watchdog of its own (not the process's), with no thread.
    fn watchdog() -> Watchdog {
        Watchdog {
            deadlines: Mutex::new(Deadlines {
                heap: BinaryHeap::new(),
                prune_at: PRUNE_MIN,
            }),
            changed: Condvar::new(),
        }
    }

    fn entry(id: &str) -> Arc<Entry> {
        let descriptor = super::super::tool::ToolDescriptor {
            id: id.to_owned(),
            name: id.to_owned(),
            description: String::new(),
            category: "test".to_owned(),
            safety_level: "read-only".to_owned(),
            tier: "core".to_owned(),
            input_schema: serde_json::json!({"type": "object"}),
            output_schema: None,
            timeout: None,
            requires_approval: false,
            notes: None,
            entry: None,
        };
        let handler: super::super::tool::Handler =
            Arc::new(|_, _| Err(ToolError::execution("unused")));
        let made = super::super::core::Server::make_entry(descriptor, handler);
        Arc::new(made.unwrap_or_else(|e| panic!("{e}")))
    }

    #[test]
    fn deadlines_of_finished_calls_do_not_pile_up() {
        let w = watchdog();
        let (slow, fast) = (entry("slow"), entry("fast"));
        let limit = Duration::from_secs(30);
        // A busy server: a hundred thousand calls, each gone when the next
        // starts, eight still running throughout.
        let running: Vec<_> = (0..8)
            .map(|_| CallControl::new(Box::new(|_| {}), None, false))
            .collect();
        for c in &running {
            w.watch(Instant::now() + limit, c, &slow, limit);
        }
        for _ in 0..100_000 {
            let c = CallControl::new(Box::new(|_| {}), None, false);
            w.watch(Instant::now() + limit, &c, &fast, limit);
        }
        let d = lock(&w.deadlines);
        assert!(
            d.heap.len() <= 2 * PRUNE_MIN,
            "{} deadlines kept",
            d.heap.len()
        );
        // The running calls' deadlines are all still there.
        let live = d
            .heap
            .iter()
            .filter(|e| e.control.strong_count() > 0)
            .count();
        assert_eq!(live, running.len());
    }
}
