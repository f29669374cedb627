/// The slot memory of one `SampleRing`: the only place in the ring that holds an unsafe pointer.
///
/// Slots are addressed by the ring's free-running indices; `index & mask` picks the slot, which
/// is why the capacity must be a power of two (2^64 is then a multiple of it, so the mapping
/// stays continuous when an `Int` index wraps from `Int.max` to `Int.min`).
///
/// Invariants, checked here: the capacity is a positive power of two; every access is masked
/// into `0 ..< capacity`; a batch read covers at most `capacity` slots. The ring itself
/// guarantees that a slot is read only after it was written and published.
///
/// `@unchecked Sendable`: the memory is shared by the producer and the consumer, but never
/// at the same time for the same slot. Slots in `readIndex ..< writeIndex` belong to the
/// consumer, all others to the producer; ownership of a slot moves only through the releasing
/// store / acquiring load of those two indices in `SampleRing`, which also orders the slot's
/// contents. The pointer is allocated in `init`, freed in `deinit` and never leaves this type.
@usableFromInline
final class RingSlots<Element: BitwiseCopyable>: @unchecked Sendable {
    @usableFromInline let capacity: Int
    @usableFromInline let mask: Int
    @usableFromInline let base: UnsafeMutablePointer<Element>

    init(capacity: Int) {
        precondition(
            capacity > 0 && capacity & (capacity &- 1) == 0,
            "SampleRing capacity must be a positive power of two, got \(capacity)"
        )
        self.capacity = capacity
        mask = capacity &- 1
        // Left uninitialized: `Element` is BitwiseCopyable, and no slot is read before it is written.
        base = .allocate(capacity: capacity)
    }

    deinit {
        base.deallocate()
    }

    /// Writes the slot for the free-running `index`.
    @inlinable
    func store(_ element: Element, at index: Int) {
        (base + (index & mask)).initialize(to: element)
    }

    /// Reads the slot for the free-running `index`.
    @inlinable
    func load(at index: Int) -> Element {
        base[index & mask]
    }

    /// Appends the slots for the free-running indices `start ..< start &+ count`, in order:
    /// at most two contiguous runs (up to the end of the memory, then from its start).
    @inlinable
    func append(from start: Int, count: Int, to buffer: inout some RangeReplaceableCollection<Element>) {
        precondition(count >= 0 && count <= capacity, "batch of \(count) slots in a ring of \(capacity)")
        let first = start & mask
        let firstRun = min(count, capacity &- first)
        buffer.append(contentsOf: UnsafeBufferPointer(start: base + first, count: firstRun))
        buffer.append(contentsOf: UnsafeBufferPointer(start: base, count: count &- firstRun))
    }
}
