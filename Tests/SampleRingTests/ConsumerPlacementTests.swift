import Foundation
import SampleRing
import Testing

@Suite("Consumer placement")
struct ConsumerPlacementTests {
    /// Records each call of `pin` and answers with `agrees`.
    final class PinRecorder {
        var calls: [Int?] = []
        var agrees = true
        func pin(_ cpu: Int?) -> Bool {
            calls.append(cpu)
            return agrees
        }
    }

    @Test("follows the producer's CPU while batches are small, pinning only when it moved")
    func followsTheProducer() {
        let recorder = PinRecorder()
        var placement = ConsumerPlacement(pin: recorder.pin)
        placement.update(batch: 2, producerCPU: nil)
        #expect(recorder.calls.isEmpty && placement.cpu == nil)
        placement.update(batch: 2, producerCPU: 1)
        placement.update(batch: 1, producerCPU: 1)
        placement.update(batch: ConsumerPlacement.busyBatch, producerCPU: 1)
        #expect(recorder.calls == [1] && placement.cpu == 1)
        placement.update(batch: 3, producerCPU: 0)
        #expect(recorder.calls == [1, 0] && placement.cpu == 0)
    }

    @Test("a large batch lets the consumer run anywhere; small ones bring it back")
    func busyProducerLetsGo() {
        let recorder = PinRecorder()
        var placement = ConsumerPlacement(pin: recorder.pin)
        placement.update(batch: ConsumerPlacement.busyBatch + 1, producerCPU: 3)
        #expect(recorder.calls.isEmpty, "never pinned: nothing to undo")
        placement.update(batch: 2, producerCPU: 3)
        placement.update(batch: 500, producerCPU: 3)
        placement.update(batch: 900, producerCPU: 3)
        #expect(recorder.calls == [3, nil] && placement.cpu == nil)
        placement.update(batch: 2, producerCPU: 3)
        #expect(recorder.calls == [3, nil, 3] && placement.cpu == 3)
    }

    @Test("a refusal (a CPU outside the cpuset) stops the placement for good")
    func refusalStops() {
        let recorder = PinRecorder()
        var placement = ConsumerPlacement(pin: recorder.pin)
        placement.update(batch: 1, producerCPU: 0)
        recorder.agrees = false
        placement.update(batch: 1, producerCPU: 1)
        #expect(placement.refused && placement.cpu == nil)
        #expect(recorder.calls == [0, 1, nil], "let go of the CPU it had")
        recorder.agrees = true
        placement.update(batch: 1, producerCPU: 0)
        #expect(recorder.calls == [0, 1, nil])
    }

    /// The real system calls, on a thread of its own: pinned, the thread runs on that CPU;
    /// unpinned, it may run on every CPU the process may.
    @Test("ThreadAffinity pins the calling thread and lets it go")
    func realAffinity() throws {
        let allowed = try #require(Self.allowedCPUs(task: "self"), "/proc/self/status says which CPUs")
        let target = try #require(allowed.max())
        let seen = Spawned { () -> (pinned: Bool, ranOn: [Int?], allowedPinned: Set<Int>?, unpinned: Bool, allowedAfter: Set<Int>?) in
            let pinned = ThreadAffinity.pinCallingThread(to: target)
            // The kernel moves the thread before the call returns; look a few times all the same.
            var ranOn: [Int?] = []
            for _ in 0 ..< 5 {
                ranOn.append(ThreadAffinity.currentCPU)
                sched_yield()
            }
            let allowedPinned = Self.allowedCPUs(task: "thread-self")
            let unpinned = ThreadAffinity.pinCallingThread(to: nil)
            return (pinned, ranOn, allowedPinned, unpinned, Self.allowedCPUs(task: "thread-self"))
        }.value
        #expect(seen.pinned && seen.unpinned)
        #expect(seen.ranOn.allSatisfy { $0 == target })
        #expect(seen.allowedPinned == [target])
        #expect(seen.allowedAfter == allowed)
        #expect(!ThreadAffinity.pinCallingThread(to: 1 << 20), "a CPU that does not exist is refused")
        #expect(!ThreadAffinity.pinCallingThread(to: -1))
    }

    @Test("a ring group remembers the CPU its producer published from")
    func groupKnowsTheProducerCPU() throws {
        let target = try #require(Self.allowedCPUs(task: "self")?.min())
        let group = SampleRingGroup<Int>()
        let ring = group.makeRing(capacity: 4)
        #expect(group.producerCPU == nil)
        let cpu = Spawned { () -> Int? in
            ThreadAffinity.pinCallingThread(to: target)
            ring.push(1)
            return ThreadAffinity.currentCPU
        }.value
        #expect(cpu == target)
        #expect(group.producerCPU == target)
    }

    /// The CPUs in `Cpus_allowed_list` of /proc/`task`/status ("0-1", "0,2-3").
    static func allowedCPUs(task: String) -> Set<Int>? {
        guard let status = try? String(contentsOfFile: "/proc/\(task)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") })
        else { return nil }
        var cpus = Set<Int>()
        for part in line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces).split(separator: ",") {
            let bounds = part.split(separator: "-").compactMap { Int($0) }
            guard let low = bounds.first, let high = bounds.last else { return nil }
            cpus.formUnion(low ... high)
        }
        return cpus
    }
}
