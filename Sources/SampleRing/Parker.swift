import CFutex
// Public: `wakeIfParked`, inlined into `push`, uses Atomic and fences in client modules.
public import Synchronization

/// Puts one consumer thread to sleep until a producer publishes something, and lets producers
/// skip the wake-up entirely while the consumer is awake.
///
/// The handshake is Dekker's: each side stores, then issues a sequentially consistent fence,
/// then loads what the other side stored.
///
/// - Consumer (`park`): store `parked = true`; fence; look at the rings again; sleep on the token
///   only if they are still empty.
/// - Producer (`wakeIfParked`, after its releasing store of the ring's write index): fence; load
///   `parked`; only if it is true, swap it back to false and leave the token.
///
/// Both fences are in one total order S. If the producer's fence comes first in S, the
/// consumer's second look (after its fence) sees the new write index and it does not sleep. If
/// the consumer's fence comes first, the producer's load (after its fence) sees `parked == true`
/// or a later value: a producer claimed the wake-up and leaves a token, or the consumer cleared
/// the flag on waking and publishes it again, with a fence, before it sleeps again. A token
/// stays until taken, so it also wakes a consumer that has not reached its sleep yet.
/// Hence no lost wake-up. While the consumer is busy, a push costs one fence and one load of a
/// cache line nobody writes: no syscall, no lock.
///
/// A `Parker` serves exactly one consumer thread; any number of producers may signal it.
@usableFromInline
final class Parker: Sendable {
    /// True from the consumer's "about to sleep" until it wakes or a producer claims the wake-up.
    @usableFromInline let parked = Atomic<Bool>(false)
    private let token = WakeToken()
    /// How many times a producer actually left a token (what a test counts as wake-up syscalls).
    private let wakeUps = Atomic<Int>(0)
    /// How many sleeps ended because the timeout passed, not because of a token. A test that waits
    /// with a long timeout while producers push expects none: one would be a lost wake-up.
    private let sleepsTimedOut = Atomic<Int>(0)
    /// The CPU the latest `publish` ran on, -1 before any: where `ConsumerPlacement` puts the consumer.
    private let publishedOn = Atomic<Int32>(-1)

    /// Whether the consumer has announced that it is about to sleep or is sleeping. A snapshot.
    var isParked: Bool {
        // Relaxed: an observation for diagnostics and benchmarks; nothing is read on the strength of it.
        parked.load(ordering: .relaxed)
    }

    var wakeUpCount: Int {
        // Relaxed: a statistic.
        wakeUps.load(ordering: .relaxed)
    }

    var timedOutSleepCount: Int {
        // Relaxed: a statistic.
        sleepsTimedOut.load(ordering: .relaxed)
    }

    /// The CPU a producer last published from, nil before any publish. A snapshot.
    var producerCPU: Int? {
        // Relaxed: a placement hint; nothing is read on the strength of it.
        let cpu = publishedOn.load(ordering: .relaxed)
        return cpu >= 0 ? Int(cpu) : nil
    }

    /// Producer side, from `publish`: remembers the CPU the producer is on (no system call: the
    /// kernel keeps it in the thread's restartable-sequence area). A load when it has not moved.
    @usableFromInline
    func notePublishingCPU() {
        let cpu = ccpu_current()
        // Relaxed, both: a placement hint, written by whichever producer published last.
        if publishedOn.load(ordering: .relaxed) != cpu { publishedOn.store(cpu, ordering: .relaxed) }
    }

    /// Producer side. Call right after the releasing store that published new elements.
    @inlinable
    func wakeIfParked() {
        // Sequentially consistent fence: orders the caller's index store before the load of `parked`
        // below (store → load, which acquire/release alone never orders). See the type's comment.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        // Relaxed: the fence above does the ordering; this load only decides whether to go on.
        guard parked.load(ordering: .relaxed) else { return }
        wakeSlow()
    }

    @usableFromInline
    func wakeSlow() {
        // Releasing on success: the caller's index store happens before the consumer's acquiring
        // exchange that reads this false, so the woken consumer sees the element. Exactly one of
        // several producers wins, so one token per sleep. Relaxed on failure: someone else claimed
        // the wake-up, or the consumer is already awake; nothing to order.
        guard parked.compareExchange(
            expected: true, desired: false, successOrdering: .releasing, failureOrdering: .relaxed
        ).exchanged else { return }
        // Relaxed: a statistic.
        wakeUps.wrappingAdd(1, ordering: .relaxed)
        token.signal()
    }

    /// Consumer side: sleeps for `duration` without announcing it, so no producer makes a wake-up
    /// call meanwhile (they see `parked` false); what they publish waits for the consumer's next
    /// look. A token left over from an earlier race only shortens one turn of the loop.
    func nap(for duration: Duration) {
        let deadline = ContinuousClock.now + duration
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else { return }
            token.wait(timeout: remaining)
        }
    }

    /// Consumer side: returns `.ready` as soon as `isReady()` holds, `.timedOut` when `timeout`
    /// passes first. `isReady` must look at every ring that signals this parker.
    @usableFromInline
    func park(until isReady: () -> Bool, timeout: Duration) -> RingWaitResult {
        if isReady() { return .ready }
        let deadline = ContinuousClock.now + timeout
        while true {
            // Relaxed: the fence below orders this store before the second look at the rings.
            parked.store(true, ordering: .relaxed)
            // Sequentially consistent fence: the consumer's half of the Dekker handshake.
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            let ready = isReady()
            let remaining = deadline - .now
            if ready || remaining <= .zero {
                // Relaxed: withdraws the request. A producer that claimed it meanwhile leaves a
                // token; the next sleep then returns at once and looks again.
                parked.store(false, ordering: .relaxed)
                return ready ? .ready : .timedOut
            }
            if !token.wait(timeout: remaining) {
                // Relaxed: a statistic.
                sleepsTimedOut.wrappingAdd(1, ordering: .relaxed)
            }
            // Acquiring: if a producer claimed the wake-up (its releasing compare-exchange stored the
            // false read here), everything it published before is visible to the look below.
            _ = parked.exchange(false, ordering: .acquiring)
            // Not ready after a wake-up: a stale token, a signal handler, the timeout, or another ring
            // of a group (when waiting on one ring). Loop: publish `parked` again and look again.
            if isReady() { return .ready }
        }
    }
}
