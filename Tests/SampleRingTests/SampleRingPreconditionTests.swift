import SampleRing
import Testing

/// Capacities that are not a positive power of two stop the process, with a message saying why.
@Suite("SampleRing preconditions")
struct SampleRingPreconditionTests {
    @Test("a ring's capacity must be a positive power of two", arguments: [0, 3, 12, -4, Int.min])
    func ringCapacity(capacity: Int) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [capacity] in
            _ = SampleRing<Int>(capacity: capacity)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("SampleRing capacity must be a positive power of two, got \(capacity)"))
    }

    @Test("a group's ring follows the same rule")
    func groupRingCapacity() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = SampleRingGroup<Int>().makeRing(capacity: 6)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("power of two, got 6"))
    }
}
