import Foundation
import Synchronization

/// Measures, for a benchmark, the time from a sender's stamp to the moment the session's consumer
/// has applied the sample (its zone update, when it made one, is out by then). The sender (the
/// mock BlueZ with `--stamp`) appends its `CLOCK_MONOTONIC` time in nanoseconds as 8 little-endian
/// bytes to each notification: trailing bytes the decoders tolerate. On the D-Bus thread each
/// decoded sample queues its notification's stamp; the consumer takes them in the same order (one
/// producer ring keeps its order), after applying them.
public final class LatencyProbe: Sendable {
    private let pending = Mutex<(stamps: [UInt64], head: Int)>(([], 0))
    private let measured = Mutex<[UInt64]>([])

    public init() {}

    /// The latencies measured so far, in nanoseconds, in arrival order.
    public var latencies: [UInt64] { measured.withLock { $0 } }

    /// `CLOCK_MONOTONIC` in nanoseconds: the clock the stamps are taken on.
    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// D-Bus thread: `samples` samples came from a notification stamped in its last 8 bytes.
    func received(_ bytes: [UInt8], samples: Int) {
        guard bytes.count >= 8, samples > 0 else { return }
        let stamp = bytes.suffix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        pending.withLock { for _ in 0..<samples { $0.stamps.append(stamp) } }
    }

    /// Consumer thread, after applying `items`.
    func applied(_ items: ArraySlice<SessionItem>) {
        let samples = items.reduce(0) { count, item in if case .sample = item { count + 1 } else { count } }
        guard samples > 0 else { return }
        let now = Self.monotonicNanoseconds()
        let stamps = pending.withLock { p -> ArraySlice<UInt64> in
            let taken = p.stamps[p.head..<min(p.head + samples, p.stamps.count)]
            p.head += taken.count
            if p.head == p.stamps.count { (p.stamps, p.head) = ([], 0) }
            return taken
        }
        measured.withLock { m in for stamp in stamps { m.append(now &- stamp) } }
    }

    /// A journal that reports what the consumer applied to this probe, then to `inner`.
    public func journal(wrapping inner: (any WorkoutSessionJournal)?) -> any WorkoutSessionJournal {
        ProbedJournal(probe: self, inner: inner)
    }

    private struct ProbedJournal: WorkoutSessionJournal {
        let probe: LatencyProbe
        let inner: (any WorkoutSessionJournal)?

        func consumerApplied(_ items: ArraySlice<SessionItem>, droppedSamples: Int) {
            probe.applied(items)
            inner?.consumerApplied(items, droppedSamples: droppedSamples)
        }
    }
}
