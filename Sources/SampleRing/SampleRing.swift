// Public: the inlinable hot paths (push, pop, drain) use Atomic and fences in client modules.
public import Synchronization

/// A lock-free single-producer / single-consumer ring of `BitwiseCopyable` elements: the hand-off
/// from a Bluetooth (or replay) thread to the workout engine's consumer thread.
///
/// - The producer calls `push(_:)`; it never blocks and never allocates. A full ring refuses the
///   element and counts it in `droppedCount`. A producer with several elements at once (the
///   notifications one read brought) `stage`s each and `publish`es them together: one releasing
///   store and one look at the consumer for the batch instead of one per element.
/// - The consumer calls `pop()`, `drain(into:)` and `wait(timeout:)`. Waiting parks the thread in
///   the kernel at no CPU cost; a producer makes a wake-up syscall only while the consumer is
///   actually parked.
/// - Several producers: give each its own ring from one `SampleRingGroup`, and let the consumer
///   wait on the group.
///
/// Contract: at any moment at most one thread pushes and at most one thread pops, drains or waits
/// (calls on one side may move between threads if each call happens before the next, e.g. through
/// a lock or a thread start). `droppedCount`, `capacity` and `isConsumerParked` may be read anywhere.
///
/// The indices are free-running `Int`s (they count elements ever written and read, and wrap from
/// `Int.max` to `Int.min`); `writeIndex &- readIndex` is the number of elements inside, and the
/// slot of index `i` is `i & (capacity - 1)`. Each side loads the other side's index acquiring and
/// stores its own releasing, as in the Linux kernel's circular buffers; it also keeps a private copy
/// of the other side's index and reloads it only when the copy says full (producer) or empty
/// (consumer), so in steady state neither side reads the other's cache line per element.
public final class SampleRing<Element: BitwiseCopyable>: Sendable {
    /// The number of elements the ring holds when full (a power of two).
    public let capacity: Int
    @usableFromInline let slots: RingSlots<Element>
    @usableFromInline let parker: Parker

    // The producer's words, then the consumer's, each group on its own cache lines: without the
    // padding a store by one side would invalidate the line the other side is working on.
    private let padding0 = CacheLinePadding()
    /// Producer-owned: the index of the next slot to write. Stored only by the producer.
    @usableFromInline let writeIndex: Atomic<Int>
    /// Producer-private: the index after the last element staged (written, not yet published).
    /// Equal to `writeIndex` between batches.
    @usableFromInline let stagedIndex: Atomic<Int>
    /// Producer-private copy of `readIndex`, refreshed when the ring looks full.
    @usableFromInline let cachedReadIndex: Atomic<Int>
    /// Producer-owned: elements refused because the ring was full.
    @usableFromInline let dropped = Atomic<Int>(0)
    private let padding1 = CacheLinePadding()
    /// Consumer-owned: the index of the next slot to read. Stored only by the consumer.
    @usableFromInline let readIndex: Atomic<Int>
    /// Consumer-private copy of `writeIndex`, refreshed when the ring looks empty.
    @usableFromInline let cachedWriteIndex: Atomic<Int>
    private let padding2 = CacheLinePadding()

    /// A ring with its own consumer wake-up. `capacity` must be a positive power of two.
    public convenience init(capacity: Int) {
        self.init(capacity: capacity, parker: Parker())
    }

    /// `startIndex` lets tests place the free-running indices anywhere, e.g. just before `Int.max`.
    init(capacity: Int, parker: Parker, startIndex: Int = 0) {
        slots = RingSlots(capacity: capacity)
        self.capacity = capacity
        self.parker = parker
        writeIndex = Atomic(startIndex)
        stagedIndex = Atomic(startIndex)
        cachedReadIndex = Atomic(startIndex)
        readIndex = Atomic(startIndex)
        cachedWriteIndex = Atomic(startIndex)
    }

    /// Elements refused because the ring was full, since it was created. Readable from any thread.
    public var droppedCount: Int {
        // Relaxed: a statistic; nothing else is read on the strength of it.
        dropped.load(ordering: .relaxed)
    }

    /// Whether the consumer is parked (or about to park) in `wait`. A snapshot, for diagnostics.
    public var isConsumerParked: Bool { parker.isParked }

    // MARK: Producer

    /// Appends `element`, or refuses it when the ring is full and counts it in `droppedCount`;
    /// publishes it together with anything staged before. Never blocks, never allocates. Producer
    /// thread only.
    @inlinable @discardableResult
    public func push(_ element: Element) -> Bool {
        let accepted = stage(element)
        publish()
        return accepted
    }

    /// Writes `element` into the next slot without showing it to the consumer yet, or refuses it
    /// when the ring is full (staged elements count as inside) and counts it in `droppedCount`.
    /// Staged elements are seen by the consumer only after `publish()`: a producer must publish
    /// before it waits for anything. Never blocks, never allocates. Producer thread only.
    @inlinable @discardableResult
    public func stage(_ element: Element) -> Bool {
        // Relaxed: a producer-private word; it lives in an Atomic only to stay Sendable.
        let write = stagedIndex.load(ordering: .relaxed)
        // Relaxed: producer-private.
        var read = cachedReadIndex.load(ordering: .relaxed)
        if write &- read == capacity {
            // Acquiring: pairs with the consumer's releasing store of `readIndex`, so its loads of the
            // slots it gave back happen before the store below overwrites one of them.
            read = readIndex.load(ordering: .acquiring)
            // Relaxed: producer-private.
            cachedReadIndex.store(read, ordering: .relaxed)
            if write &- read == capacity {
                // Relaxed: a statistic.
                dropped.wrappingAdd(1, ordering: .relaxed)
                return false
            }
        }
        slots.store(element, at: write)
        // Relaxed: producer-private; `publish` orders the slot stores for the consumer.
        stagedIndex.store(write &+ 1, ordering: .relaxed)
        return true
    }

    /// Shows the consumer every element staged so far, and wakes it if it is parked: one
    /// releasing store and one fence for the whole batch. Costs two loads when nothing is staged.
    /// Producer thread only.
    @inlinable
    public func publish() {
        // Relaxed, both: producer-owned words, read back by their only writer.
        let staged = stagedIndex.load(ordering: .relaxed)
        guard staged != writeIndex.load(ordering: .relaxed) else { return }
        // Releasing: the slot stores of the batch happen before any acquiring load of `writeIndex`
        // that sees this value, so the consumer never reads a slot before its contents.
        writeIndex.store(staged, ordering: .releasing)
        parker.notePublishingCPU()
        parker.wakeIfParked()
    }

    /// Whether a `push` now would be accepted. Producer thread only: a producer that must not
    /// lose anything (a replay) waits for room instead of pushing into a full ring.
    @inlinable
    public var hasRoom: Bool {
        // Relaxed: producer-private. Acquiring: as in `stage`, pairs with the consumer's releasing
        // store of `readIndex`.
        stagedIndex.load(ordering: .relaxed) &- readIndex.load(ordering: .acquiring) < capacity
    }

    // MARK: Consumer

    /// Removes and returns the oldest element, or nil when the ring is empty. Consumer thread only.
    @inlinable
    public func pop() -> Element? {
        // Relaxed: only the consumer stores `readIndex`.
        let read = readIndex.load(ordering: .relaxed)
        // Relaxed: a consumer-private word; the value in it was loaded acquiring (below).
        if read == cachedWriteIndex.load(ordering: .relaxed) {
            // Acquiring: pairs with `push`'s releasing store, making the slot contents visible.
            let write = writeIndex.load(ordering: .acquiring)
            // Relaxed: consumer-private.
            cachedWriteIndex.store(write, ordering: .relaxed)
            if read == write { return nil }
        }
        let element = slots.load(at: read)
        // Releasing: the slot load above happens before the producer, loading `readIndex`
        // acquiring, reuses the slot.
        readIndex.store(read &+ 1, ordering: .releasing)
        return element
    }

    /// Appends every element in the ring to `buffer`, oldest first, and returns how many.
    /// Consumer thread only; allocates only if `buffer` has to grow.
    @inlinable @discardableResult
    public func drain(into buffer: inout some RangeReplaceableCollection<Element>) -> Int {
        // Relaxed: only the consumer stores `readIndex`.
        let read = readIndex.load(ordering: .relaxed)
        // Acquiring: pairs with `push`'s releasing store; every slot below `write` is visible.
        let write = writeIndex.load(ordering: .acquiring)
        // Relaxed: consumer-private.
        cachedWriteIndex.store(write, ordering: .relaxed)
        let count = write &- read
        guard count != 0 else { return 0 }
        slots.append(from: read, count: count, to: &buffer)
        // Releasing: the slot loads above happen before the producer reuses those slots.
        readIndex.store(write, ordering: .releasing)
        return count
    }

    /// Blocks the consumer until the ring has elements or `timeout` passes; returns at once when
    /// it already has some. A parked consumer uses no CPU. Consumer thread only.
    public func wait(timeout: Duration) -> RingWaitResult {
        parker.park(until: { hasElements }, timeout: timeout)
    }

    /// Whether there is something to read. Consumer side (it reads `readIndex` as its owner).
    @usableFromInline var hasElements: Bool {
        // Relaxed, both: a hint. `pop` and `drain` load `writeIndex` acquiring again before they
        // read a slot, and in `Parker.park` the sequentially consistent fence orders this load.
        writeIndex.load(ordering: .relaxed) != readIndex.load(ordering: .relaxed)
    }
}

/// 128 bytes of nothing between fields written by different threads: two cache lines, because
/// x86 prefetches lines in pairs. Swift lays out a class's stored properties in declaration order.
private struct CacheLinePadding {
    private let words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
        = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
}
