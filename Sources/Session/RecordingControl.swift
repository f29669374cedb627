import Foundation
import Synchronization

/// Ends a live recording (`stop`, from any thread: a signal handler, a test) and counts what it
/// received so far.
public final class RecordingControl: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let semaphore = DispatchSemaphore(value: 0)
    private let received = Atomic<Int>(0)
    private let clockStart = Mutex<ContinuousClock.Instant?>(nil)
    /// Measures stamped notifications' latency (the benchmark); nil otherwise.
    public let latencyProbe: LatencyProbe?

    public init(latencyProbe: LatencyProbe? = nil) {
        self.latencyProbe = latencyProbe
    }

    /// Asks the recording to end; it finishes and saves the workout as if its duration ran out.
    public func stop() {
        if !stopped.exchange(true, ordering: .acquiringAndReleasing) { semaphore.signal() }
    }

    /// Notifications received (decoded or not) since the recording started.
    public var notificationsReceived: Int { received.load(ordering: .acquiring) }

    func countNotification() { received.add(1, ordering: .releasing) }

    /// The instant the recording's times count from (a `t` of 0 in its trace), once it has started:
    /// a test maps the arrival times in the trace onto its own clock with it.
    public var anchor: ContinuousClock.Instant? { clockStart.withLock { $0 } }

    func started(at anchor: ContinuousClock.Instant) { clockStart.withLock { $0 = anchor } }

    /// Waits for `stop` up to `timeout` (forever when nil); true when stopped.
    public func wait(timeout: Duration?) -> Bool {
        guard let timeout else {
            semaphore.wait()
            return true
        }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        return semaphore.wait(timeout: .now() + seconds) == .success
    }
}
