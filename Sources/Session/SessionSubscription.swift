public import SensorCore
import Synchronization
public import Workouts
import Foundation

/// What a session publishes, in the order its consumer applied it: samples, and the builder's
/// outputs (zone updates with their running totals, state changes, events, running statistics).
public enum SessionEvent: Sendable {
    case sample(Sample)
    case output(WorkoutBuilderOutput)
    /// This subscriber fell behind and `count` events were dropped (samples and statistics first,
    /// which newer ones replace) since the last event it read.
    case dropped(Int)
}

/// One output following a session's event stream (the terminal dashboard, a web page, MQTT): a
/// bounded queue the consumer thread fills without ever waiting, and the output drains from a
/// thread of its own. An output that falls behind loses the oldest samples and statistics first
/// (the next ones carry the news), then the oldest of the rest, and reads a `.dropped` event
/// saying how many.
public final class SessionSubscription: Sendable {
    /// Events held at most before the oldest are dropped.
    public let capacity: Int
    /// Whether samples are published to it (the builder's outputs always are).
    public let wantsSamples: Bool
    private let queue = Mutex(Queue())
    private let ready = DispatchSemaphore(value: 0)

    private struct Queue {
        var events: [SessionEvent] = []
        var dropped = 0
        var finished = false
    }

    init(capacity: Int, wantsSamples: Bool) {
        self.capacity = max(capacity, 1)
        self.wantsSamples = wantsSamples
    }

    /// The next event, waiting up to `timeout` for one; nil on timeout, or once the session has
    /// finished and every event was read.
    public func next(timeout: Duration) -> SessionEvent? {
        let deadline = DispatchTime.now() + max(timeout.seconds, 0)
        while true {
            let (event, finished) = queue.withLock { q -> (SessionEvent?, Bool) in
                if q.dropped > 0 {
                    defer { q.dropped = 0 }
                    return (.dropped(q.dropped), false)
                }
                return q.events.isEmpty ? (nil, q.finished) : (q.events.removeFirst(), false)
            }
            if let event { return event }
            if finished || ready.wait(timeout: deadline) == .timedOut { return nil }
        }
    }

    /// Whether the session has finished and every event was read.
    public var isFinished: Bool { queue.withLock { $0.finished && $0.events.isEmpty && $0.dropped == 0 } }

    /// On the consumer thread: never waits.
    func publish(_ event: SessionEvent) {
        queue.withLock { q in
            if q.events.count >= capacity {
                let replaceable = q.events.firstIndex { event in
                    switch event {
                    case .sample, .output(.statistics): true
                    default: false
                    }
                }
                q.events.remove(at: replaceable ?? 0)
                q.dropped += 1
            }
            q.events.append(event)
        }
        ready.signal()
    }

    func finish() {
        queue.withLock { $0.finished = true }
        ready.signal()
    }
}
