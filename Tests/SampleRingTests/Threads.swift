import Foundation
import Synchronization
import SampleRing
import SensorCore
import Testing

/// `body` on a thread of its own, started at once; `value` waits for its result.
///
/// The thread tests are synchronous and start their threads this way: nothing in them waits for
/// the cooperative pool (one thread per core), which synchronous tests of other suites may hold
/// for minutes on a busy 2-core machine. An async test that waited for the pool to resume it (an
/// `async let`, a `Task.sleep` poll) was once held past its consumer's 60 s patience.
final class Spawned<Result: Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Mutex<Result?>(nil)

    init(_ body: @escaping @Sendable () -> Result) {
        Thread { [self] in
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }.start()
    }

    var value: Result {
        done.wait()
        done.signal()
        return result.withLock { $0! }
    }
}

/// Waits until `condition` holds, checking every millisecond; records an issue after 30 s.
/// A liveness guard for tests that need another thread to reach a state, not a timing assertion.
func waitUntil(_ what: Comment, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool) {
    let deadline = ContinuousClock.now + .seconds(30)
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("gave up waiting: \(what)", sourceLocation: sourceLocation)
            return
        }
        Thread.sleep(forTimeInterval: 0.001)
    }
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
    /// Values whose `HandOffWitness` entry was not yet (or no longer) visible to the consumer.
    var unwitnessed = 0

    init(producers: Int, receivedEach: Int = 0) { received = Array(repeating: receivedEach, count: producers) }

    var total: Int { received.reduce(0, +) }

    mutating func arrived(_ value: Int, from producer: Int) {
        if value != received[producer] { outOfOrder += 1 }
        received[producer] += 1
    }

    /// One producer's batch of samples (their values counting up), each checked against `witness`.
    mutating func arrived(_ batch: [Sample], witnessedBy witness: HandOffWitness) {
        for sample in batch {
            let value = Int(sample.value)
            if !witness.confirms(value) { unwitnessed += 1 }
            arrived(value, from: 0)
        }
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

/// Plain memory that a producer writes before pushing a value and the consumer reads after popping
/// it, with no synchronization of its own: only the ring's release/acquire pairs order these
/// accesses, in both directions, so if they failed ThreadSanitizer would report a data race here.
/// (The ring's own slot copies are generic, and ThreadSanitizer does not check those in an
/// unoptimized build; this memory it does.) `@unchecked Sendable` on purpose: that is its job.
///
/// It has four entries per ring slot: the consumer checks a batch only after the pop or drain
/// that took it has freed those slots, but the producer can overwrite an entry only after a
/// later consumer call has freed more, which comes after those checks.
final class HandOffWitness: @unchecked Sendable {
    private let values: UnsafeMutablePointer<Int>
    private let mask: Int

    /// `ringCapacity`: that of the ring under test (a power of two).
    init(ringCapacity: Int) {
        values = .allocate(capacity: 4 * ringCapacity)
        values.initialize(repeating: -1, count: 4 * ringCapacity)
        mask = 4 * ringCapacity - 1
    }

    deinit { values.deallocate() }

    /// Producer, before pushing `value`.
    func record(_ value: Int) { values[value & mask] = value }

    /// Consumer, after popping `value`.
    func confirms(_ value: Int) -> Bool { values[value & mask] == value }
}
