//! Timing: warm-up, then the median of several runs of a closure, wall clock, one thread.

use std::time::{Duration, Instant};

/// The timings of one measured case.
#[derive(Debug, Clone)]
pub struct Timing {
    /// Every measured run, in order.
    pub runs: Vec<Duration>,
}

impl Timing {
    /// The median run.
    pub fn median(&self) -> Duration {
        let mut v = self.runs.clone();
        v.sort();
        v[v.len() / 2]
    }
}

/// Runs `f` `warmup` times unmeasured, then `runs` times measured.
pub fn measure<T>(warmup: usize, runs: usize, mut f: impl FnMut() -> T) -> Timing {
    for _ in 0..warmup {
        std::hint::black_box(f());
    }
    let runs = (0..runs.max(1))
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed()
        })
        .collect();
    Timing { runs }
}
