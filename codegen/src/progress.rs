//! Progress of a long run (thousands of tools), for a terminal to show.

use std::sync::Arc;

type Callback = dyn Fn(&str, usize, usize) + Send + Sync;

/// Reports how far a run is: a stage (`reading specs`, `rust`), how many of
/// its items are done, and how many there are. Silent unless given a
/// callback: the CLI gives one on a terminal only, so that CI logs and
/// `--message-format json` stay quiet.
#[derive(Clone, Default)]
pub struct Progress(Option<Arc<Callback>>);

impl Progress {
    pub fn new(callback: impl Fn(&str, usize, usize) + Send + Sync + 'static) -> Progress {
        Progress(Some(Arc::new(callback)))
    }

    /// Reports `done` of `total` items of `stage`.
    pub fn report(&self, stage: &str, done: usize, total: usize) {
        if let Some(f) = &self.0 {
            f(stage, done, total);
        }
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Progress(on)"
        } else {
            "Progress(off)"
        })
    }
}
