//! What a procedure of several runs (bench, a vdbench file) has measured so far, for a stop
//! that must end the process before the procedure ends (the binary's stop bound): the
//! procedure sets, before each run and after it, how to render its results with the running
//! run's results as the engine's live results give them. The binary calls [`SoFar::render`]
//! from its watchdog.
//!
//! ```
//! use iofit_procedure::so_far::SoFar;
//! let so_far = SoFar::default();
//! so_far.set(Box::new(|running| Some(format!("{} jobs running", running.map_or(0, |r| r.jobs.len())))));
//! let by = std::time::Instant::now() + std::time::Duration::from_millis(100);
//! assert_eq!(so_far.render(None, by).as_deref(), Some("0 jobs running"));
//! ```

use iofit_stats::RunResult;
use std::sync::{Mutex, TryLockError};
use std::time::{Duration, Instant};

/// Renders the results so far; gets the running run's results (None: no run is going).
pub type Render = Box<dyn Fn(Option<&RunResult>) -> Option<String> + Send>;

/// See the module's text.
#[derive(Default)]
pub struct SoFar {
    render: Mutex<Option<Render>>,
}

impl std::fmt::Debug for SoFar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SoFar")
    }
}

impl SoFar {
    /// From now on the results so far are rendered by `render`.
    pub fn set(&self, render: Render) {
        *self.render.lock().unwrap_or_else(|e| e.into_inner()) = Some(render);
    }

    /// The results so far, `running` added; None when nothing was set, or when the lock is
    /// still held at `by` (the procedure's thread lost the CPU while it held it).
    pub fn render(&self, running: Option<&RunResult>, by: Instant) -> Option<String> {
        loop {
            match self.render.try_lock() {
                Ok(guard) => return guard.as_ref().and_then(|render| render(running)),
                Err(TryLockError::Poisoned(e)) => {
                    return e.into_inner().as_ref().and_then(|render| render(running))
                }
                Err(TryLockError::WouldBlock) if Instant::now() >= by => return None,
                Err(TryLockError::WouldBlock) => std::thread::sleep(Duration::from_millis(1)),
            }
        }
    }
}
