import SampleRing
import Testing

/// `wait(timeout:)` tells a timeout from elements. Nothing here measures how long a wait took.
@Suite("Waiting with a timeout")
struct SampleRingWaitTests {
    @Test("an empty ring times out", arguments: [Duration.milliseconds(20), .zero, .milliseconds(-5)])
    func emptyRingTimesOut(timeout: Duration) {
        let ring = SampleRing<Int>(capacity: 4)
        #expect(ring.wait(timeout: timeout) == .timedOut)
        #expect(!ring.isConsumerParked)
    }

    @Test("a ring with elements is ready at once, even with a zero timeout")
    func readyRing() {
        let ring = SampleRing<Int>(capacity: 4)
        ring.push(1)
        #expect(ring.wait(timeout: .zero) == .ready)
        #expect(ring.wait(timeout: .seconds(60)) == .ready)
        #expect(ring.pop() == 1)
        #expect(ring.wait(timeout: .milliseconds(10)) == .timedOut)
    }

    @Test("a group times out when every ring is empty, and also with no rings at all")
    func emptyGroupTimesOut() {
        let group = SampleRingGroup<Int>()
        #expect(group.wait(timeout: .milliseconds(10)) == .timedOut)
        let rings = [group.makeRing(capacity: 2), group.makeRing(capacity: 2)]
        #expect(group.wait(timeout: .milliseconds(20)) == .timedOut)
        rings[1].push(5)
        #expect(group.wait(timeout: .zero) == .ready)
        #expect(rings[0].wait(timeout: .milliseconds(10)) == .timedOut, "one ring's wait looks at that ring only")
    }
}
