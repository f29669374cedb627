import Glibc

/// A POSIX mutex and condition variable whose timeouts run on `CLOCK_MONOTONIC`: the only code
/// in `SampleRing` that calls the C library, used by `Parker` to put the consumer thread to sleep.
///
/// Why not Synchronization alone: it offers atomics and `Mutex`, but no way to sleep until
/// another thread says so, with a timeout. Why not a semaphore or `DispatchSemaphore`: glibc's
/// `sem_timedwait` (which libdispatch uses on Linux) measures timeouts on the wall clock, which
/// NTP may step mid-ride. Why not eventfd or `futex`: Swift's Glibc module does not import
/// `eventfd` (it needs `_GNU_SOURCE`), and `syscall` is variadic. pthreads are plain POSIX, need
/// no file descriptor and cannot fail to initialise with default attributes.
///
/// `@unchecked Sendable`: pthread mutexes and condition variables exist to be used from several
/// threads at once. Their memory is allocated (at a fixed address, as POSIX requires) in `init`,
/// destroyed and freed in `deinit`, and the pointers never leave this type.
final class ThreadCondition: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        var attributes = pthread_condattr_t()
        // The corresponding C functions are pthread_mutex_init, pthread_condattr_setclock and pthread_cond_init.
        check(pthread_mutex_init(mutex, nil), "pthread_mutex_init")
        check(pthread_condattr_init(&attributes), "pthread_condattr_init")
        check(pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC), "pthread_condattr_setclock")
        check(pthread_cond_init(condition, &attributes), "pthread_cond_init")
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Wakes the thread sleeping in `wait(while:until:)`, if any.
    ///
    /// The signal is sent under the mutex, so it cannot fall between the waiter's last look at its
    /// predicate and its going to sleep. The corresponding C function is `pthread_cond_signal`.
    func signal() {
        pthread_mutex_lock(mutex)
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Sleeps while `predicate` holds, evaluating it under the mutex; whoever makes it false must
    /// call `signal()` afterwards. Returns false when `deadline` passed with the predicate still
    /// true. The corresponding C function is `pthread_cond_timedwait`.
    func wait(while predicate: () -> Bool, until deadline: Deadline) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var time = deadline.monotonicTime
        while predicate() {
            let result = pthread_cond_timedwait(condition, mutex, &time)
            if result == ETIMEDOUT { return !predicate() }
            check(result, "pthread_cond_timedwait")
        }
        return true
    }

    /// An absolute point on `CLOCK_MONOTONIC`, so a wait that sleeps several times keeps one deadline.
    struct Deadline {
        fileprivate let monotonicTime: timespec

        /// Now plus `timeout` (negative timeouts count as zero; absurdly long ones saturate).
        init(after timeout: Duration) {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let (seconds, attoseconds) = max(timeout, .zero).components
            var nanoseconds = now.tv_nsec + Int(attoseconds / 1_000_000_000)
            var carry = 0
            if nanoseconds >= 1_000_000_000 {
                nanoseconds -= 1_000_000_000
                carry = 1
            }
            let (sum, overflow) = now.tv_sec.addingReportingOverflow(Int(seconds))
            let (total, carryOverflow) = sum.addingReportingOverflow(carry)
            monotonicTime = timespec(tv_sec: overflow || carryOverflow ? .max : total, tv_nsec: nanoseconds)
        }
    }
}

/// pthread functions return an error number instead of setting `errno`; with valid arguments
/// these cannot fail, so a failure is a programming error.
private func check(_ result: Int32, _ function: StaticString) {
    precondition(result == 0, "\(function) failed with error \(result)")
}
