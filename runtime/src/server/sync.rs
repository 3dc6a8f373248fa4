//! The two ways the server waits: a lock that outlives a panicking holder,
//! and a short spin before a thread parks.

use std::sync::Mutex;
use std::time::{Duration, Instant};

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// How long an idle worker spins before it parks.
const SPIN: Duration = Duration::from_micros(50);

/// Spins until `ready` or [`SPIN`] has passed (the clock read every 32 polls:
/// reading it costs more than a poll). True if `ready`.
pub(crate) fn spin_until(mut ready: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    for polls in 1u32.. {
        if ready() {
            return true;
        }
        if polls % 32 == 0 && start.elapsed() >= SPIN {
            return false;
        }
        std::hint::spin_loop();
    }
    false
}
