import Glibc

/// A pipe used as a wake-up token: the only code in `SampleRing` that calls the C library, used
/// by `Parker` to put the consumer thread to sleep and to wake it.
///
/// A byte written to the pipe stays there until the consumer reads it, so a wake-up sent just
/// before the consumer goes to sleep is not lost, and the writer never takes a lock the sleeper
/// might hold: both ends are non-blocking, so `signal()` never blocks the producer. `poll(2)`
/// measures its timeout on `CLOCK_MONOTONIC`, so wall-clock steps do not stretch a wait.
///
/// Why not Synchronization alone: it has atomics and `Mutex`, but no way to sleep until another
/// thread says so. Why not eventfd or a futex: Swift's Glibc module does not import `eventfd`
/// (it needs `_GNU_SOURCE`), and `syscall` is variadic. Why not a pthread condition variable: the
/// signalling side must take the mutex, so a producer could block behind a preempted consumer.
/// Why not a POSIX or Dispatch semaphore: `sem_timedwait` runs on the wall clock.
///
/// Costs two file descriptors; creating it traps when the process has none left.
final class WakePipe: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        // The corresponding C functions are pipe and fcntl.
        precondition(pipe(&ends) == 0, "SampleRing could not create its wake-up pipe: errno \(errno)")
        for end in ends {
            precondition(
                fcntl(end, F_SETFL, O_NONBLOCK) == 0 && fcntl(end, F_SETFD, FD_CLOEXEC) == 0,
                "SampleRing could not configure its wake-up pipe: errno \(errno)"
            )
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Leaves a token in the pipe. Never blocks: when the pipe is full (it holds 64 KiB of tokens,
    /// and `Parker` writes at most one per sleep), the tokens already there do the job.
    func signal() {
        var token: UInt8 = 1
        while write(writeEnd, &token, 1) < 0 && errno == EINTR {}
    }

    /// Sleeps until a token arrives or `timeout` passes (rounded up to whole milliseconds), then
    /// consumes every token present. May also return early (a signal handler ran). Returns false
    /// when the timeout passed without a token.
    @discardableResult
    func wait(timeout: Duration) -> Bool {
        let (seconds, attoseconds) = max(timeout, .zero).components
        let milliseconds = seconds >= Int64(Int32.max / 1000)
            ? Int32.max  // about 24 days; the caller's deadline loop sleeps again
            : Int32(seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        var descriptor = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
        // The corresponding C functions are poll and read.
        let ready = poll(&descriptor, 1, milliseconds)
        guard ready > 0 else { return ready != 0 }
        var tokens: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        while read(readEnd, &tokens, MemoryLayout.size(ofValue: tokens)) == MemoryLayout.size(ofValue: tokens) {}
        return true
    }
}
