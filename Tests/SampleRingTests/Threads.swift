import Foundation
import Synchronization
import SampleRing
import Testing

/// Runs `body` on a new thread and returns its result. Blocking code (a parked consumer, a
/// producer retrying a full ring) must not run on the cooperative pool, which has one thread per core.
func onNewThread<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// Waits until `condition` holds, checking every millisecond; records an issue after 30 s.
/// A liveness guard for tests that need another thread to reach a state, not a timing assertion.
func waitUntil(
    _ what: Comment, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async throws {
    for _ in 0 ..< 30_000 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(1))
    }
    Issue.record("gave up waiting: \(what)", sourceLocation: sourceLocation)
}

/// Long runs of the stress tests when `SENSORBRIDGE_STRESS=1`.
let isLongStressRun = ProcessInfo.processInfo.environment["SENSORBRIDGE_STRESS"] == "1"

/// Raised by a consumer that stops, done or giving up, so that producers stop retrying a full ring
/// and a broken ring fails its test instead of hanging it.
final class StopFlag: Sendable {
    private let stopped = Atomic(false)

    func raise() {
        // Relaxed: producers only stop retrying; nothing is read on the strength of it.
        stopped.store(true, ordering: .relaxed)
    }

    var isRaised: Bool {
        // Relaxed: see `raise`.
        stopped.load(ordering: .relaxed)
    }
}

/// One value shared between threads, behind a `Mutex`.
final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) { storage = Mutex(value) }

    var value: Value { storage.withLock { $0 } }

    func set(_ value: Value) { storage.withLock { $0 = value } }
}

/// Checks that each producer's values arrive exactly once and in order (0, 1, 2, ...).
struct ArrivalCheck: Equatable {
    var received: [Int]
    var outOfOrder = 0
    /// A wait with a long timeout that timed out while producers were still pushing.
    var lostWakeUp = false

    init(producers: Int, receivedEach: Int = 0) { received = Array(repeating: receivedEach, count: producers) }

    var total: Int { received.reduce(0, +) }

    mutating func arrived(_ value: Int, from producer: Int) {
        if value != received[producer] { outOfOrder += 1 }
        received[producer] += 1
    }
}

/// Pushes until the ring takes `element`, yielding the processor meanwhile; false when `stop` was raised.
func pushRetrying<Element>(_ element: Element, into ring: SampleRing<Element>, unless stop: StopFlag) -> Bool {
    while !ring.push(element) {
        if stop.isRaised { return false }
        sched_yield()
    }
    return true
}
