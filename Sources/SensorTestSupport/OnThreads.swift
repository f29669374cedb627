import Foundation

/// Runs `body(0)` to `body(count - 1)` each on a thread of its own, all at once, and returns once
/// every one has ended. Unlike `DispatchQueue.concurrentPerform`, which runs only as many at once
/// as there are cores and holds the global queue's threads while the bodies block (a body waiting
/// for work that needs those threads then stalls everything else that needs them).
public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let finished = (0..<count).map { index in
        let done = DispatchSemaphore(value: 0)
        Thread {
            body(index)
            done.signal()
        }.start()
        return done
    }
    for done in finished { done.wait() }
}
