import Foundation
import Synchronization
import Testing

@testable import SampleRing

/// The futex token under `Parker`: what it promises, checked directly. Results only, never times.
@Suite("WakeToken")
struct WakeTokenTests {
    @Test("a token left before the wait is taken at once, and only once")
    func tokenLeftEarly() {
        let token = WakeToken()
        token.signal()
        token.signal()
        #expect(token.wait(timeout: .seconds(3600)))
        #expect(!token.wait(timeout: .milliseconds(10)), "two signals leave one token")
    }

    @Test("no token: the wait ends with the timeout, also a zero or negative one", arguments: [
        Duration.milliseconds(15), .zero, .milliseconds(-5), .nanoseconds(1),
    ])
    func timesOut(_ timeout: Duration) {
        #expect(!WakeToken().wait(timeout: timeout))
    }

    @Test("a sleeping thread wakes on the signal, long before its timeout")
    func wakesSleeper() {
        let token = WakeToken()
        let woken = DispatchSemaphore(value: 0)
        let result = Mutex<Bool?>(nil)
        Thread {
            let taken = token.wait(timeout: .seconds(3600))
            result.withLock { $0 = taken }
            woken.signal()
        }.start()
        // Whether the sleeper is already asleep or not yet, the token wakes it.
        Thread.sleep(forTimeInterval: 0.02)
        token.signal()
        #expect(woken.wait(timeout: .now() + 60) == .success)
        #expect(result.withLock { $0 } == true)
    }
}
