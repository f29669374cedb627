import CFutex

/// A wake-up token on a Linux futex word: the only code in `SampleRing` that calls the system,
/// used by `Parker` to put the consumer thread to sleep and to wake it.
///
/// `signal()` leaves the token and wakes the sleeper; `wait` takes it, sleeping only while it is
/// not there. A token left just before the consumer goes to sleep therefore stays until taken, so
/// that wake-up is not lost, and the signalling side never takes a lock the sleeper might hold and
/// never blocks. The futex measures its timeout on `CLOCK_MONOTONIC`, so wall-clock steps do not
/// stretch a wait.
///
/// Why a futex: the consumer sleeps and wakes in one system call instead of `poll` and `read`,
/// the producer wakes it with a cheaper call than a pipe write, and it costs no file descriptors;
/// `sensorbridge-bench bluez` measures it beside a pipe in its hand-off floor. Why
/// not Synchronization alone: it has atomics and `Mutex`, but no way to sleep until another
/// thread says so. Why not a pthread condition variable: the signalling side must take the mutex,
/// so a producer could block behind a preempted consumer. Why not a POSIX or Dispatch semaphore:
/// `sem_timedwait` runs on the wall clock. `syscall` is variadic, so the two calls are in `CFutex`.
///
/// `@unchecked Sendable`: the word is read and written only through `CFutex`'s atomic operations.
final class WakeToken: @unchecked Sendable {
    private let word: UnsafeMutablePointer<UInt32>

    init() {
        word = .allocate(capacity: 1)
        word.initialize(to: 0)
    }

    deinit {
        word.deallocate()
    }

    /// Leaves the token and wakes the consumer if it sleeps. Never blocks.
    func signal() {
        cfutex_signal(word)
    }

    /// Sleeps until a token arrives or `timeout` passes, then takes the token. May also return
    /// early without one (a signal handler ran, or a wake-up meant for a token already taken
    /// arrived late), so the caller looks again. Returns false only when the timeout passed
    /// without a token.
    @discardableResult
    func wait(timeout: Duration) -> Bool {
        let (seconds, attoseconds) = max(timeout, .zero).components
        // About 292 years at most; the caller's deadline loop sleeps again.
        let nanoseconds = seconds >= Int64.max / 1_000_000_000
            ? Int64.max : seconds * 1_000_000_000 + (attoseconds + 999_999_999) / 1_000_000_000
        return cfutex_wait(word, nanoseconds) != 0  // 1: the token; -1: early, not timed out
    }
}
