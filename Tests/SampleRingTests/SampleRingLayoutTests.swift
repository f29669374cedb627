@testable import SampleRing
import Testing

/// Every layout of small rings: each capacity, each start position of the free-running indices
/// (every slot, twice round, and every position across the `Int.max` → `Int.min` wrap), each fill
/// level, each partial pop, then filled to the brim, one refused, and emptied by `pop` or `drain`.
@Suite("SampleRing layouts")
struct SampleRingLayoutTests {
    static let capacities = [1, 2, 4, 8, 16]

    static func startIndices(capacity: Int) -> [Int] {
        Array(0 ..< 2 * capacity) + (0 ... capacity).map { Int.max - $0 }
    }

    /// What one layout run observed; compared as a whole against what a FIFO of `capacity` must do.
    struct Outcome: Equatable {
        var accepted: Int
        var refused: Int
        var droppedCount: Int
        var consumed: [Int]
        var emptyAfterwards: Bool
    }

    /// Pushes `filled` values, pops `popped`, pushes until one is refused, then empties the ring.
    static func run(
        capacity: Int, start: Int, filled: Int, popped: Int, emptyByDraining: Bool, parker: Parker
    ) -> Outcome {
        let ring = SampleRing<Int>(capacity: capacity, parker: parker, startIndex: start)
        var next = 0
        var outcome = Outcome(accepted: 0, refused: 0, droppedCount: 0, consumed: [], emptyAfterwards: false)
        func push() -> Bool {
            let accepted = ring.push(next)
            if accepted {
                outcome.accepted += 1
                next += 1
            } else {
                outcome.refused += 1
            }
            return accepted
        }
        for _ in 0 ..< filled { _ = push() }
        for _ in 0 ..< popped {
            if let value = ring.pop() { outcome.consumed.append(value) }
        }
        for _ in 0 ... capacity {  // bounded: a broken ring might never refuse
            if !push() { break }
        }
        if emptyByDraining {
            ring.drain(into: &outcome.consumed)
        } else {
            while let value = ring.pop() { outcome.consumed.append(value) }
        }
        outcome.droppedCount = ring.droppedCount
        outcome.emptyAfterwards = ring.pop() == nil && ring.drain(into: &outcome.consumed) == 0 && !ring.hasElements
        return outcome
    }

    @Test("push, pop and drain at every start, fill and wrap position", arguments: capacities)
    func everyLayout(capacity: Int) {
        let parker = Parker()
        for start in Self.startIndices(capacity: capacity) {
            for filled in 0 ... capacity {
                for popped in 0 ... filled {
                    let total = popped + capacity  // everything ever accepted: popped early, plus a full ring
                    let expected = Outcome(
                        accepted: total, refused: 1, droppedCount: 1, consumed: Array(0 ..< total), emptyAfterwards: true
                    )
                    for emptyByDraining in [false, true] {
                        let outcome = Self.run(
                            capacity: capacity, start: start, filled: filled, popped: popped,
                            emptyByDraining: emptyByDraining, parker: parker
                        )
                        #expect(
                            outcome == expected,
                            "capacity \(capacity), start \(start), filled \(filled), popped \(popped), drain \(emptyByDraining)"
                        )
                    }
                }
            }
        }
        #expect(parker.wakeUpCount == 0, "no consumer was parked, so no push may signal")
    }

    @Test("drain appends after what the buffer already holds, into any RangeReplaceableCollection")
    func drainAppends() {
        let ring = SampleRing<UInt8>(capacity: 4)
        for value: UInt8 in [1, 2, 3] { ring.push(value) }
        var buffer: ContiguousArray<UInt8> = [9]
        #expect(ring.drain(into: &buffer) == 3)
        #expect(buffer == [9, 1, 2, 3])
        #expect(ring.drain(into: &buffer) == 0)
        #expect(buffer == [9, 1, 2, 3])
    }

    @Test("a refused push leaves the ring untouched, and every refusal counts")
    func refusalsCount() {
        let ring = SampleRing<Int>(capacity: 2)
        #expect(ring.push(1) && ring.push(2))
        #expect(!ring.push(3))
        #expect(!ring.push(4))
        #expect(ring.droppedCount == 2)
        #expect(ring.pop() == 1)
        #expect(ring.push(5))
        var rest: [Int] = []
        ring.drain(into: &rest)
        #expect(rest == [2, 5])
        #expect(ring.droppedCount == 2)
    }

    @Test("hasRoom says whether a push would be accepted, at every start position, without counting a drop")
    func hasRoomMatchesPush() {
        for capacity in Self.capacities {
            for start in Self.startIndices(capacity: capacity) {
                let ring = SampleRing<Int>(capacity: capacity, parker: Parker(), startIndex: start)
                for value in 0 ..< capacity {
                    #expect(ring.hasRoom)
                    #expect(ring.push(value))
                }
                #expect(!ring.hasRoom)
                #expect(ring.droppedCount == 0)
                #expect(ring.pop() == 0)
                #expect(ring.hasRoom)
            }
        }
    }

    @Test("staged elements stay unseen until published, count as inside, and a push publishes them too")
    func stageAndPublish() {
        for capacity in Self.capacities {
            for start in Self.startIndices(capacity: capacity) {
                let ring = SampleRing<Int>(capacity: capacity, parker: Parker(), startIndex: start)
                for value in 0 ..< capacity { #expect(ring.stage(value)) }
                #expect(ring.pop() == nil, "nothing is seen before publish")
                #expect(!ring.hasRoom)
                #expect(!ring.stage(99), "staged elements fill the ring")
                #expect(ring.droppedCount == 1)
                ring.publish()
                ring.publish()  // nothing new: no second batch
                var seen: [Int] = []
                #expect(ring.drain(into: &seen) == capacity)
                #expect(seen == Array(0 ..< capacity))
                #expect(ring.stage(100))
                if capacity > 1 { #expect(ring.push(101)) } else { ring.publish() }
                seen.removeAll()
                ring.drain(into: &seen)
                #expect(seen == (capacity > 1 ? [100, 101] : [100]))
            }
        }
    }
}
