import Foundation
import SensorCore

/// Shared measurement helpers for the benchmarks.
enum Bench {
    /// Runs `body` (which does `batch` operations and returns a checksum) repeatedly for about
    /// `seconds`, five rounds, and returns the best rate in operations per second.
    static func rate(batch: Int, seconds: Double = 0.4, rounds: Int = 5, _ body: () -> Int) -> Double {
        var best = 0.0
        var sink = 0
        for _ in 0..<rounds {
            let clock = ContinuousClock()
            let start = clock.now
            var operations = 0
            var elapsed = 0.0
            repeat {
                sink &+= body()
                operations += batch
                elapsed = (clock.now - start).seconds
            } while elapsed < seconds
            best = max(best, Double(operations) / elapsed)
        }
        blackHole(sink)
        return best
    }

    /// CPU time of the calling thread: on a machine shared with other work, time spent waiting for
    /// a core is not counted against the code measured. The corresponding C function is
    /// `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`.
    static func threadCPUTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// Starts `body` on a new thread; `wait()` on the result returns once it has finished.
    static func startThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        let finished = DispatchSemaphore(value: 0)
        Thread {
            body()
            finished.signal()
        }.start()
        return finished
    }

    /// Keeps a value alive so the optimizer cannot remove the work that produced it.
    @inline(never) static func blackHole<T>(_ value: T) {
        withExtendedLifetime(value) {}
    }

    static func printJSON(_ object: JSONObject) {
        print(JSONValue.object(object).serialized)
    }

    /// `12.3 M/s` style.
    static func humanRate(_ perSecond: Double) -> String {
        if perSecond >= 1e6 { return String(format: "%.1f M/s", perSecond / 1e6) }
        if perSecond >= 1e3 { return String(format: "%.1f k/s", perSecond / 1e3) }
        return String(format: "%.0f /s", perSecond)
    }
}
