// `sensorbridge-bench ring`: SampleRing against the obvious alternatives, in one run.
import Foundation
import SampleRing
import SensorCore
import Synchronization

/// Moves `Sample`s from a producer thread to a consumer thread through SampleRing, an
/// `AsyncStream` with a bounded buffer and a `Mutex`-guarded array, all of the same capacity, and
/// reports samples per second (median of five rounds, the queues interleaved so that a noisy
/// neighbour hits them alike) and SampleRing's speed-up over each. Each consumer does what the
/// workout engine would: take a batch, and when there is none, wait the way that queue allows
/// (SampleRing parks; the stream suspends; the Mutex queue can only poll). Then: the time from a
/// push into an empty ring to the parked consumer running, and the CPU time a consumer uses while
/// parked with nothing to read.
enum RingBenchmark {
    static let capacity = 16384
    static let rounds = 5
    static let ringSamples = 20_000_000
    static let asyncStreamSamples = 500_000
    static let mutexQueueSamples = 5_000_000
    static let wakeUpTrials = 3000
    static let parkedSeconds = 5

    static func run(_ json: Bool) {
        var ring: [Double] = [], asyncStream: [Double] = [], mutexQueue: [Double] = []
        for _ in 0 ..< rounds {
            ring.append(throughput(ringSamples, transfer: ringTransfer))
            asyncStream.append(throughput(asyncStreamSamples, transfer: asyncStreamTransfer))
            mutexQueue.append(throughput(mutexQueueSamples, transfer: mutexQueueTransfer))
        }
        let results = Results(
            sampleRingRounds: ring.sorted(), asyncStreamRounds: asyncStream.sorted(),
            mutexQueueRounds: mutexQueue.sorted(),
            wakeUpMicroseconds: wakeUpLatencies(), parkedCPUMilliseconds: parkedCPUMilliseconds()
        )
        print(json ? results.json : results.table)
    }

    // MARK: Throughput

    /// Runs `transfer` (which returns when the consumer has received `count` samples) and returns samples per second.
    private static func throughput(_ count: Int, transfer: (Int) -> Void) -> Double {
        let start = ContinuousClock.now
        transfer(count)
        return Double(count) / (ContinuousClock.now - start).seconds
    }

    /// The i-th sample of a transfer; the consumer checks that `value` counts up from zero.
    private static func sample(_ i: Int) -> Sample {
        Sample(sensor: SensorID(1), type: .cyclingPower, value: Double(i), time: .zero)
    }

    private static func ringTransfer(_ count: Int) {
        let ring = SampleRing<Sample>(capacity: capacity)
        let consumer = Bench.startThread {
            var batch: [Sample] = []
            batch.reserveCapacity(capacity)
            var expected = 0
            while expected < count {
                batch.removeAll(keepingCapacity: true)
                if ring.drain(into: &batch) == 0 {
                    _ = ring.wait(timeout: .seconds(1))
                    continue
                }
                for sample in batch {
                    precondition(sample.value == Double(expected), "SampleRing lost or reordered a sample")
                    expected += 1
                }
            }
        }
        let producer = Bench.startThread {
            for i in 0 ..< count {
                while !ring.push(sample(i)) { sched_yield() }
            }
        }
        producer.wait()
        consumer.wait()
    }

    private static func asyncStreamTransfer(_ count: Int) {
        let (stream, continuation) = AsyncStream<Sample>.makeStream(bufferingPolicy: .bufferingOldest(capacity))
        let consumer = DispatchSemaphore(value: 0)
        Task.detached {
            var expected = 0
            for await sample in stream {
                precondition(sample.value == Double(expected), "AsyncStream lost or reordered a sample")
                expected += 1
                if expected == count { break }
            }
            consumer.signal()
        }
        let producer = Bench.startThread {
            for i in 0 ..< count {
                while case .dropped = continuation.yield(sample(i)) { sched_yield() }
            }
            continuation.finish()
        }
        producer.wait()
        consumer.wait()
    }

    private static func mutexQueueTransfer(_ count: Int) {
        let queue = MutexArrayQueue(capacity: capacity)
        let consumer = Bench.startThread {
            var batch: [Sample] = []
            batch.reserveCapacity(capacity)
            var expected = 0
            while expected < count {
                batch.removeAll(keepingCapacity: true)
                queue.takeAll(swappingWith: &batch)
                if batch.isEmpty {
                    sched_yield()
                    continue
                }
                for sample in batch {
                    precondition(sample.value == Double(expected), "the Mutex queue lost or reordered a sample")
                    expected += 1
                }
            }
        }
        let producer = Bench.startThread {
            for i in 0 ..< count {
                while !queue.push(sample(i)) { sched_yield() }
            }
        }
        producer.wait()
        consumer.wait()
    }

    // MARK: Parking

    /// Microseconds from just before a push into an empty ring to the parked consumer returning
    /// from `wait`, one trial at a time, each starting only once the consumer is parked.
    private static func wakeUpLatencies() -> [Double] {
        let ring = SampleRing<Sample>(capacity: 16)
        let anchor = ContinuousClock.now
        let handled = Shared(0)
        let latencies = Shared<[Double]>([])
        let consumer = Bench.startThread {
            var measured: [Double] = []
            measured.reserveCapacity(wakeUpTrials)
            for _ in 0 ..< wakeUpTrials {
                guard ring.wait(timeout: .seconds(10)) == .ready, let sample = ring.pop() else {
                    fatalError("the parked consumer was not woken within 10 s")
                }
                let latency = (ContinuousClock.now - anchor) - sample.time
                measured.append(latency.seconds * 1e6)
                handled.update { $0 += 1 }
            }
            latencies.update { $0 = measured }
        }
        for trial in 0 ..< wakeUpTrials {
            while handled.value < trial || !ring.isConsumerParked { usleep(20) }
            usleep(200)  // from "parked" (a flag) into the kernel takes well under this
            ring.push(Sample(sensor: SensorID(1), type: .heartRate, value: 0, time: ContinuousClock.now - anchor))
        }
        consumer.wait()
        return latencies.value.sorted()
    }

    /// CPU time of a consumer thread that waits `parkedSeconds` on an empty ring.
    private static func parkedCPUMilliseconds() -> Double {
        let ring = SampleRing<Sample>(capacity: 16)
        let milliseconds = Shared(Double.nan)
        let consumer = Bench.startThread {
            let before = Bench.threadCPUTime()
            let result = ring.wait(timeout: .seconds(parkedSeconds))
            let used = Bench.threadCPUTime() - before
            precondition(result == .timedOut, "an empty ring reported elements")
            milliseconds.update { $0 = used.seconds * 1e3 }
        }
        consumer.wait()
        return milliseconds.value
    }

    // MARK: Results

    private struct Results {
        /// Samples per second of each round, sorted.
        var sampleRingRounds: [Double]
        var asyncStreamRounds: [Double]
        var mutexQueueRounds: [Double]
        /// Sorted.
        var wakeUpMicroseconds: [Double]
        var parkedCPUMilliseconds: Double

        var sampleRing: Double { percentile(sampleRingRounds, 0.5) }
        var asyncStream: Double { percentile(asyncStreamRounds, 0.5) }
        var mutexQueue: Double { percentile(mutexQueueRounds, 0.5) }

        var wakeUpMedian: Double { percentile(wakeUpMicroseconds, 0.5) }
        var wakeUp99: Double { percentile(wakeUpMicroseconds, 0.99) }

        var json: String {
            func rounded(_ x: Double, _ places: Double) -> JSONValue {
                .number((x * places).rounded() / places)
            }
            let object: JSONObject = [
                "sampleRing": .object(["perSecond": rounded(sampleRing, 1)]),
                "asyncStream": .object([
                    "perSecond": rounded(asyncStream, 1), "ratio": rounded(sampleRing / asyncStream, 100),
                ]),
                "mutexQueue": .object([
                    "perSecond": rounded(mutexQueue, 1), "ratio": rounded(sampleRing / mutexQueue, 100),
                ]),
                "wakeup": .object([
                    "p50Microseconds": rounded(wakeUpMedian, 10), "p99Microseconds": rounded(wakeUp99, 10),
                ]),
                "parkedCPUMilliseconds": rounded(parkedCPUMilliseconds, 1000),
            ]
            return JSONValue.object(object).serialized
        }

        var table: String {
            func row(_ name: String, _ rounds: [Double]) -> String {
                let perSecond = percentile(rounds, 0.5)
                let range = "\(format(rounds.first! / 1e6, 1))-\(format(rounds.last! / 1e6, 1)) M"
                return "  \(pad(name, 44))\(pad(format(perSecond / 1e6, 2) + " M", 12, right: true))"
                    + "\(pad(range, 16, right: true))\(pad(format(sampleRing / perSecond, 1) + "x", 10, right: true))"
            }
            func check(_ ok: Bool) -> String { ok ? "ok" : "MISSED" }
            return """
                SampleRing: Sample (\(MemoryLayout<Sample>.stride) bytes) from a producer thread to a consumer thread, \
                \(rounds) rounds

                  \(pad("queue", 44))\(pad("samples/s", 12, right: true))\(pad("range", 16, right: true))\
                \(pad("ring/this", 10, right: true))
                \(row("SampleRing (capacity \(capacity))", sampleRingRounds))
                \(row("AsyncStream, .bufferingOldest(\(capacity))", asyncStreamRounds))
                \(row("Mutex<[Sample]> queue (capacity \(capacity))", mutexQueueRounds))

                  wake-up, push into an empty ring -> parked consumer running (\(wakeUpTrials) trials):
                    median \(format(wakeUpMedian, 1)) µs, p99 \(format(wakeUp99, 1)) µs
                  consumer CPU while parked \(parkedSeconds) s with nothing to read: \(format(parkedCPUMilliseconds, 3)) ms

                  targets: >= 50 M samples/s \(check(sampleRing >= 50e6)), \
                >= 20x AsyncStream \(check(sampleRing / asyncStream >= 20)), \
                wake-up p99 < 100 µs \(check(wakeUp99 < 100)), \
                parked CPU < 10 ms per 5 s \(check(parkedCPUMilliseconds < 10))
                """
        }
    }
}

/// The obvious lock-based queue: a bounded array behind `Synchronization.Mutex`; the consumer
/// swaps the whole array out in one critical section.
private final class MutexArrayQueue: Sendable {
    private let items: Mutex<[Sample]>
    private let capacity: Int

    init(capacity: Int) {
        var items: [Sample] = []
        items.reserveCapacity(capacity)
        self.items = Mutex(items)
        self.capacity = capacity
    }

    func push(_ sample: Sample) -> Bool {
        items.withLock { items in
            guard items.count < capacity else { return false }
            items.append(sample)
            return true
        }
    }

    /// Exchanges the queue's array with `spare` (pass an empty one with capacity reserved).
    func takeAll(swappingWith spare: inout [Sample]) {
        items.withLock { items in swap(&items, &spare) }
    }
}

/// A value shared between threads behind a `Mutex`.
private final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value { storage.withLock { $0 } }
    func update(_ body: (inout Value) -> Void) { storage.withLock { body(&$0) } }
}


/// The nearest-rank percentile of sorted `values`.
private func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((fraction * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
}

private func format(_ x: Double, _ places: Int) -> String { String(format: "%.\(places)f", x) }

private func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
    let fill = String(repeating: " ", count: max(0, width - s.count))
    return right ? fill + s : s + fill
}
