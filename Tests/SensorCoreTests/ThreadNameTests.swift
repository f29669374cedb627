import Foundation
import SensorCore
import Synchronization
import Testing

/// Threads named as they start: the kernel has the name at once, every time (Foundation's name
/// alone missed about 1 start in 100).
@Suite struct ThreadNameTests {
    @Test func everyThreadStartedHasItsNameInTheKernelAtOnce() {
        let misses = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        let count = 400
        for _ in 0..<count {
            Thread {
                Thread.nameCurrent("sb.test.thread.long")
                let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                if comm.trimmingCharacters(in: .newlines) != "sb.test.thread." { misses.add(1, ordering: .relaxed) }
                done.signal()
            }.start()
        }
        for _ in 0..<count { done.wait() }
        #expect(misses.load(ordering: .relaxed) == 0)
    }
}

/// `Duration(written:)`: what `--auto-lap` and plans take.
@Suite struct WrittenDurationTests {
    @Test func durationsAsPeopleWriteThem() {
        #expect(Duration(written: "300") == .seconds(300) && Duration(written: "90s") == .seconds(90))
        #expect(Duration(written: "1h30m") == .seconds(5400) && Duration(written: "2.5m") == .seconds(150))
        for wrong in ["", "0", "5m30", "10x", "-5", "1e9", "99999999999999999999", "m"] {
            #expect(Duration(written: wrong) == nil, "\(wrong)")
        }
    }
}
