// Public: the inlinable `drain`, `wait` and `droppedCount` take the members lock in client modules.
public import Synchronization

/// Several producers, one consumer: one `SampleRing` per producer, all signalling the same
/// wake-up, so the consumer sleeps on the whole group at once.
///
/// ```swift
/// let group = SampleRingGroup<Sample>()
/// let heartRate = group.makeRing(capacity: 1024)   // pushed by the D-Bus thread
/// let replay = group.makeRing(capacity: 1024)      // pushed by a replay reader
/// // consumer thread:
/// var batch: [Sample] = []
/// while running {
///     if group.wait(timeout: .seconds(1)) == .timedOut { builder.tick() }
///     batch.removeAll(keepingCapacity: true)
///     group.drain(into: &batch)
///     builder.process(batch)
/// }
/// ```
///
/// Each ring keeps its own order; `drain(into:)` takes the rings one after the other in the
/// order they were made. Rings can be added from any thread at any time (a sensor that shows up
/// mid-ride) and stay for the group's lifetime. One consumer thread may wait on and drain the
/// group (and pop its rings); each producer follows `SampleRing`'s contract for its own ring.
public final class SampleRingGroup<Element: BitwiseCopyable>: Sendable {
    @usableFromInline let parker = Parker()
    /// Read under its lock in place, not copied out: the consumer goes through it on every drain
    /// and every look before parking, which are inlinable and so specialized in the caller.
    @usableFromInline let members = Mutex<[SampleRing<Element>]>([])

    public init() {}

    /// A new ring for one producer, signalling this group's consumer. Any thread.
    public func makeRing(capacity: Int) -> SampleRing<Element> {
        let ring = SampleRing<Element>(capacity: capacity, parker: parker)
        members.withLock { $0.append(ring) }
        return ring
    }

    /// The rings made so far, oldest first. Any thread.
    public var rings: [SampleRing<Element>] {
        members.withLock { $0 }
    }

    /// Elements refused by full rings, over all rings. Any thread.
    @inlinable
    public var droppedCount: Int {
        members.withLock { $0.reduce(0) { $0 &+ $1.droppedCount } }
    }

    /// Whether the consumer is parked (or about to park) in `wait`. A snapshot, for diagnostics.
    public var isConsumerParked: Bool { parker.isParked }

    /// Appends every element of every ring to `buffer` and returns how many. Consumer thread only.
    /// Inlinable, so that it is specialized for the caller's element and buffer types.
    @inlinable @discardableResult
    public func drain(into buffer: inout some RangeReplaceableCollection<Element>) -> Int {
        members.withLock { rings in
            var count = 0
            for ring in rings {
                count += ring.drain(into: &buffer)
            }
            return count
        }
    }

    /// Blocks the consumer until any ring has elements or `timeout` passes. Consumer thread only.
    /// Inlinable, like `drain`: the looks at the rings run specialized.
    @inlinable
    public func wait(timeout: Duration) -> RingWaitResult {
        // `members` is read again on every look, so the look after the parking fence also sees a
        // ring added meanwhile: adding it (under the lock) happens before its producer's first push.
        parker.park(until: { members.withLock { $0.contains { $0.hasElements } } }, timeout: timeout)
    }

    /// The CPU a producer of this group last published from, nil before any publish: what
    /// `ConsumerPlacement` follows. Any thread; a snapshot.
    public var producerCPU: Int? { parker.producerCPU }

    /// Sleeps for `duration` without asking the producers to wake it: for a consumer that has
    /// found elements arriving faster than a wake-up each is worth, so that it takes what arrives
    /// meanwhile in one batch and no producer pays a wake-up call for it. Unlike `wait`, it does
    /// not return early when elements arrive. Consumer thread only.
    public func nap(for duration: Duration) {
        parker.nap(for: duration)
    }
}
