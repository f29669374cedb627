import Foundation
import Synchronization

/// A disk as slow as a test wants, for a recorder's `beforeCommit` hook: the first journal
/// transaction stalls in `beforeCommit` until `open()` (as if its fsync took that long), the
/// others pass. Each call is counted (`waitForCalls` waits for them to begin) and says which thread
/// made it.
public final class CommitGate: Sendable {
    /// Signalled by each call, as it begins.
    private let started = DispatchSemaphore(value: 0)
    private let opened = DispatchSemaphore(value: 0)
    private let state = Mutex<(isOpen: Bool, callers: [ThreadIdentity])>((false, []))

    /// `open`: no call stalls.
    public init(open: Bool = false) {
        if open { self.open() }
    }

    /// The hook: counts the call and notes its thread, then waits for `open()` unless it was called.
    public func beforeCommit() {
        let isOpen = state.withLock { state in
            state.callers.append(ThreadIdentity.current)
            return state.isOpen
        }
        started.signal()
        guard !isOpen else { return }
        opened.wait()
        opened.signal()  // for the next one
    }

    /// Lets the stalled call and every later one through.
    public func open() {
        let wasOpen = state.withLock { state in
            defer { state.isOpen = true }
            return state.isOpen
        }
        if !wasOpen { opened.signal() }
    }

    /// The threads of the calls so far, in order.
    public var callers: [ThreadIdentity] { state.withLock { $0.callers } }

    /// Waits for `count` more calls to begin (up to `timeout` for each); false when one did not.
    public func waitForCalls(_ count: Int, timeout: Duration = .seconds(30)) -> Bool {
        (0..<count).allSatisfy { _ in started.wait(timeout: .now() + timeout.seconds) == .success }
    }
}

/// A thread of this process as the kernel knows it: its id and name (`/proc/thread-self`).
public struct ThreadIdentity: Sendable, Equatable {
    public let id: Int
    public let name: String

    /// The calling thread.
    public static var current: ThreadIdentity {
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return ThreadIdentity(
            id: Int(link.split(separator: "/").last ?? "") ?? -1, name: name.trimmingCharacters(in: .newlines))
    }

    /// Whether the thread still runs, in this process.
    public var isAlive: Bool { FileManager.default.fileExists(atPath: "/proc/self/task/\(id)") }

    /// Waits up to `timeout` for the thread to end (it may still be returning from its last
    /// function); whether it did.
    public func waitUntilEnded(timeout: Duration = .seconds(10)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while isAlive {
            guard ContinuousClock.now < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return true
    }
}
