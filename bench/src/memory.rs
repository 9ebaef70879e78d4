//! Process figures a cell reports: peak RSS (VmHWM, resettable), CPU time, load average.
//! Linux only, like bench/peers.py.

/// A `/proc/self/status` memory figure (`VmRSS`, `VmHWM`) in bytes, 0 if unavailable.
pub fn status_bytes(key: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| {
            let rest = line.strip_prefix(key)?.strip_prefix(':')?;
            let kib: u64 = rest.split_whitespace().next()?.parse().ok()?;
            Some(kib * 1024)
        })
        .unwrap_or(0)
}

/// Resets VmHWM to the current RSS (Linux ≥ 4.0); false if not allowed.
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// CPU seconds (user + system, all threads) this process has used.
pub fn cpu_seconds() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return f64::NAN;
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// The 1-minute load average.
pub fn loadavg_1min() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(f64::NAN)
}

/// Minor page faults this process has taken so far: each fault on fresh memory is a page
/// the kernel zeroed, so the count per run shows whether a reader reuses its memory.
pub fn minor_faults() -> u64 {
    // SAFETY: getrusage fills one rusage struct through a valid pointer; zeroed is a valid
    // bit pattern for it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    if rc != 0 {
        return 0;
    }
    usage.ru_minflt as u64
}
