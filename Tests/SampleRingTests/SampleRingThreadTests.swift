import Foundation
import SensorCore
import Synchronization
import Testing

@testable import SampleRing

/// The ring between real threads: ordering and completeness under contention, several producers,
/// and the parking handshake. Short by default; `SENSORBRIDGE_STRESS=1` runs them much longer.
@Suite("SampleRing across threads")
struct SampleRingThreadTests {
    /// The `value`-th sample of a producer; consumers check that `value` counts up from zero.
    func sample(_ value: Int, sensor: Int = 0) -> Sample {
        Sample(sensor: SensorID(UInt16(sensor)), type: .heartRate, value: Double(value), time: .zero)
    }

    /// While producers push, the consumer waits with a timeout long enough that a sleep ending by
    /// timeout can only mean a lost wake-up (or lost elements). The tests count such sleeps and
    /// `.timedOut` results; they never measure time.
    static let patience = Duration.seconds(60)

    /// A consumer that parks gets happens-before from the wake-up path too; one that only polls
    /// relies on the index orderings alone, which `HandOffWitness` lets ThreadSanitizer check. (It
    /// polls a large ring only: on a busy machine each poll of a tiny one costs a time slice.)
    enum ConsumerStyle { case parks, polls }

    @Test(
        "two threads: every value arrives exactly once and in order",
        arguments: zip([1, 8, 1024, 1024], [ConsumerStyle.parks, .parks, .parks, .polls])
    )
    func twoThreads(capacity: Int, consumer style: ConsumerStyle) {
        let count = isLongStressRun ? 5_000_000 : 50_000
        let ring = SampleRing<Sample>(capacity: capacity)
        let witness = HandOffWitness(ringCapacity: capacity)
        let stop = StopFlag()
        let droppedSeenByProducer = Spawned {
            for value in 0 ..< count {
                witness.record(value)
                if !pushRetrying(sample(value), into: ring, unless: stop) { break }
            }
            return ring.droppedCount  // read on the producer side; the consumer reads it too
        }
        let arrivals = Spawned {
            var check = ArrivalCheck(producers: 1)
            var batch: [Sample] = []
            var round = 0
            while check.total < count {
                round += 1
                // Take turns with every consumer call, so each of them meets a running producer.
                batch.removeAll(keepingCapacity: true)
                if round.isMultiple(of: 2) {
                    ring.drain(into: &batch)
                } else if let value = ring.pop() {
                    batch.append(value)
                }
                if batch.isEmpty && style == .polls {
                    sched_yield()
                } else if batch.isEmpty {
                    _ = ring.droppedCount
                    let timeout = round.isMultiple(of: 3) ? Duration.zero : Self.patience
                    if ring.wait(timeout: timeout) == .timedOut && timeout != .zero {
                        check.lostWakeUp = true
                        break
                    }
                }
                check.arrived(batch, witnessedBy: witness)
            }
            stop.raise()
            return check
        }
        let (check, producerDropped) = (arrivals.value, droppedSeenByProducer.value)
        #expect(check == ArrivalCheck(producers: 1, receivedEach: count))
        #expect(ring.parker.timedOutSleepCount == 0, "a sleep outlived its timeout: a lost wake-up")
        #expect(ring.droppedCount == producerDropped)
        #expect(ring.pop() == nil)
    }

    @Test("batches staged and published: every value arrives once, in order, and no wake-up is lost", arguments: [1, 8, 64])
    func stagedBatches(capacity: Int) {
        let count = isLongStressRun ? 2_000_000 : 50_000
        let ring = SampleRing<Sample>(capacity: capacity)
        let witness = HandOffWitness(ringCapacity: capacity)
        let stop = StopFlag()
        let produced = Spawned {
            var value = 0
            var batchSize = 1
            while value < count, !stop.isRaised {
                // Batches of 1, 2, 3 ... 9 elements, published together; a full ring publishes what
                // it has and waits for room.
                for _ in 0 ..< batchSize where value < count {
                    witness.record(value)
                    while !ring.stage(sample(value)) {
                        ring.publish()
                        if stop.isRaised { return }
                        sched_yield()
                    }
                    value += 1
                }
                ring.publish()
                batchSize = batchSize % 9 + 1
            }
        }
        // On a thread of its own too: a test blocking a cooperative thread could keep the producer's
        // task from starting.
        let arrivals = Spawned {
            var check = ArrivalCheck(producers: 1)
            var batch: [Sample] = []
            while check.total < count {
                batch.removeAll(keepingCapacity: true)
                if ring.drain(into: &batch) == 0 {
                    if ring.wait(timeout: Self.patience) == .timedOut {
                        check.lostWakeUp = true
                        break
                    }
                    continue
                }
                check.arrived(batch, witnessedBy: witness)
            }
            stop.raise()
            return check
        }
        let (check, _) = (arrivals.value, produced.value)
        #expect(check == ArrivalCheck(producers: 1, receivedEach: count))
        #expect(ring.parker.timedOutSleepCount == 0, "a sleep outlived its timeout: a lost wake-up")
    }

    @Test("several producers, one consumer waiting on the group, a ring added while it waits")
    func severalProducers() {
        let producers = 3
        let perProducer = isLongStressRun ? 2_000_000 : 20_000
        let group = SampleRingGroup<Sample>()
        let earlyRings = (0 ..< producers - 1).map { _ in group.makeRing(capacity: 64) }
        let stop = StopFlag()

        let arrivals = Spawned {
            var check = ArrivalCheck(producers: producers)
            var batch: [Sample] = []
            while check.total < producers * perProducer {
                batch.removeAll(keepingCapacity: true)
                if group.drain(into: &batch) == 0 && group.wait(timeout: Self.patience) == .timedOut {
                    check.lostWakeUp = true
                    break
                }
                for sample in batch { check.arrived(Int(sample.value), from: Int(sample.sensor.rawValue)) }
            }
            stop.raise()
            return check
        }
        let producing = (0 ..< producers).map { producer in
            Spawned {
                // The last producer makes its ring on its own thread, after the consumer started.
                let ring = producer < earlyRings.count ? earlyRings[producer] : group.makeRing(capacity: 64)
                for value in 0 ..< perProducer {
                    if !pushRetrying(sample(value, sensor: producer), into: ring, unless: stop) { break }
                }
            }
        }
        for producer in producing { producer.value }
        #expect(arrivals.value == ArrivalCheck(producers: producers, receivedEach: perProducer))
        #expect(earlyRings[0].parker.timedOutSleepCount == 0, "a sleep outlived its timeout: a lost wake-up")
        #expect(group.rings.count == producers)
    }

    @Test("ping-pong: each push races the consumer going to sleep, and no wake-up is lost")
    func pingPong() {
        let rounds = isLongStressRun ? 500_000 : 20_000
        let ring = SampleRing<Int>(capacity: 2)
        let taken = Shared(-1)
        let stop = StopFlag()
        let producer = Spawned {
            for value in 0 ..< rounds {
                ring.push(value)
                // Wait for the consumer to take it; it then heads straight back into `wait`,
                // where the next push meets it at a different point of the handshake each time.
                while taken.value != value && !stop.isRaised { sched_yield() }
            }
        }
        let check = {
            var check = ArrivalCheck(producers: 1)
            while check.total < rounds {
                guard ring.wait(timeout: Self.patience) == .ready, let value = ring.pop() else {
                    check.lostWakeUp = true
                    break
                }
                check.arrived(value, from: 0)
                taken.set(value)
            }
            stop.raise()
            return check
        }()
        producer.value
        #expect(check == ArrivalCheck(producers: 1, receivedEach: rounds))
        #expect(ring.parker.timedOutSleepCount == 0, "a sleep outlived its timeout: a lost wake-up")
    }

    @Test("a parked consumer wakes on the next push, with one wake-up")
    func parkedConsumerWakes() throws {
        let ring = SampleRing<Int>(capacity: 8)
        let outcome = Spawned { (ring.wait(timeout: .seconds(60)), ring.pop()) }
        waitUntil("the consumer parks") { ring.isConsumerParked }
        ring.push(42)
        let (result, value) = outcome.value
        #expect(result == .ready)
        #expect(value == 42)
        #expect(ring.parker.wakeUpCount == 1)
        #expect(!ring.isConsumerParked)
    }

    @Test("a consumer parked on a group wakes for any ring")
    func parkedGroupConsumerWakes() throws {
        let group = SampleRingGroup<Int>()
        let rings = [group.makeRing(capacity: 4), group.makeRing(capacity: 4)]
        let outcome = Spawned {
            var values: [Int] = []
            return (group.wait(timeout: .seconds(60)), group.drain(into: &values), values)
        }
        waitUntil("the consumer parks") { group.isConsumerParked }
        rings[1].push(7)
        let (result, count, values) = outcome.value
        #expect(result == .ready)
        #expect(count == 1)
        #expect(values == [7])
    }

    @Test("waiting on one ring of a group sleeps through pushes into the others")
    func waitOnOneRingOfAGroup() throws {
        let group = SampleRingGroup<Int>()
        let watched = group.makeRing(capacity: 4)
        let other = group.makeRing(capacity: 4)
        let outcome = Spawned { (watched.wait(timeout: .seconds(60)), watched.pop()) }
        waitUntil("the consumer parks") { group.isConsumerParked }
        other.push(1)
        // That push claimed the wake-up (the flag is false now); the consumer finds nothing in its
        // ring and parks again, which is the only way the flag becomes true once more.
        waitUntil("the consumer parks again") { group.isConsumerParked }
        watched.push(2)
        let (result, value) = outcome.value
        #expect(result == .ready)
        #expect(value == 2)
        #expect(watched.parker.wakeUpCount == 2)
        #expect(other.pop() == 1)
    }

    @Test("pushes while the consumer is parked pay one wake-up; the leftover token is harmless")
    func oneWakeUpPerPark() {
        let group = SampleRingGroup<Int>()
        let first = group.makeRing(capacity: 4)
        let second = group.makeRing(capacity: 4)
        // Stand in for a consumer between announcing that it parks and falling asleep.
        first.parker.parked.store(true, ordering: .relaxed)
        first.push(1)
        second.push(2)
        first.push(3)
        #expect(first.parker.wakeUpCount == 1)
        #expect(!group.isConsumerParked)
        var values: [Int] = []
        group.drain(into: &values)
        #expect(values == [1, 3, 2])
        // The token left for that wake-up is still there: the next wait takes it,
        // finds every ring empty and goes back to sleep instead of reporting `.ready`.
        #expect(group.wait(timeout: .milliseconds(20)) == .timedOut)
        #expect(first.parker.wakeUpCount == 1)
    }
}
