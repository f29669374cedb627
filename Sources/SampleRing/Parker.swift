import Synchronization

/// Puts one consumer thread to sleep until a producer publishes something, and lets producers
/// skip the wake-up entirely while the consumer is awake.
///
/// The handshake is Dekker's: each side stores, then issues a sequentially consistent fence,
/// then loads what the other side stored.
///
/// - Consumer (`park`): store `parked = true`; fence; look at the rings again; sleep only if
///   they are still empty.
/// - Producer (`wakeIfParked`, after its releasing store of the ring's write index): fence;
///   load `parked`; only if it is true, take it back to false and signal the condition.
///
/// Both fences are in one total order S. If the producer's fence comes first in S, the
/// consumer's second look (after its fence) sees the new write index. If the consumer's fence
/// comes first, the producer's load (after its fence) sees `parked == true`, or a later value:
/// either another producer already took it (and signals), or the consumer cleared it on waking
/// and will publish `true` again, with a fence, before it sleeps again. So either the consumer
/// does not sleep or somebody wakes it: no lost wake-up. While the consumer is busy the producer
/// pays one fence and one load of a cache line nobody writes, and no syscall.
///
/// A `Parker` serves exactly one consumer thread; any number of producers may signal it.
final class Parker: Sendable {
    /// True from the consumer's "about to sleep" until it wakes or a producer claims the wake-up.
    private let parked = Atomic<Bool>(false)
    private let condition = ThreadCondition()
    /// How many times a producer actually signalled the condition (what a test counts as syscalls).
    private let wakeUps = Atomic<Int>(0)

    /// Whether the consumer has announced that it is about to sleep or is sleeping. A snapshot.
    var isParked: Bool {
        // Relaxed: an observation for diagnostics and benchmarks; nothing is read on the strength of it.
        parked.load(ordering: .relaxed)
    }

    var wakeUpCount: Int {
        // Relaxed: a statistic.
        wakeUps.load(ordering: .relaxed)
    }

    /// Producer side. Call right after the releasing store that published new elements.
    @inline(__always)
    func wakeIfParked() {
        // Sequentially consistent fence: orders the caller's index store before the load of `parked`
        // below (store → load, which acquire/release alone never orders). See the type's comment.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        // Relaxed: the fence above does the ordering; this load only decides whether to go on.
        guard parked.load(ordering: .relaxed) else { return }
        wakeSlow()
    }

    private func wakeSlow() {
        // Releasing on success: the index store made before it happens before the consumer's
        // acquiring load of `parked` (in the sleep predicate) that sees false, so the woken consumer
        // sees the element. The compare-exchange lets exactly one of several producers pay the syscall.
        // Relaxed on failure: somebody else claimed or cancelled the wake-up; nothing to order.
        guard parked.compareExchange(
            expected: true, desired: false, successOrdering: .releasing, failureOrdering: .relaxed
        ).exchanged else { return }
        // Relaxed: a statistic.
        wakeUps.wrappingAdd(1, ordering: .relaxed)
        condition.signal()
    }

    /// Consumer side: returns `.ready` as soon as `isReady()` holds, `.timedOut` when `timeout`
    /// passes first. `isReady` must look at every ring that signals this parker.
    func park(until isReady: () -> Bool, timeout: Duration) -> RingWaitResult {
        if isReady() { return .ready }
        let deadline = ThreadCondition.Deadline(after: timeout)
        while true {
            // Relaxed: the fence below orders this store before the second look at the rings.
            parked.store(true, ordering: .relaxed)
            // Sequentially consistent fence: the consumer's half of the Dekker handshake.
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            if isReady() {
                // Relaxed: only withdraws the request; a producer that still claims it sends a
                // signal nobody waits for, which is harmless.
                parked.store(false, ordering: .relaxed)
                return .ready
            }
            // Acquiring: pairs with the producer's releasing compare-exchange (see `wakeSlow`).
            let woken = condition.wait(while: { parked.load(ordering: .acquiring) }, until: deadline)
            if !woken {
                // Relaxed: as above, withdrawing the request.
                parked.store(false, ordering: .relaxed)
                return isReady() ? .ready : .timedOut
            }
            // A wake-up from a ring that `isReady` does not look at (a group's other ring) loops.
            if isReady() { return .ready }
        }
    }
}
