import Foundation
import SensorTestSupport
import Synchronization
import Testing
import Outputs

/// Children started from several threads at once, as the tests start them.
@Suite struct ChildLaunchTests {
    /// No child started through `ChildLaunch` holds another child's socket or pipe: each has only the
    /// socket Foundation watches it through. Without the lock, 1 to 36 of these 400 children (four runs) held
    /// another's (the socket that tells that other child's exit, hidden until this one exits).
    @Test(.timeLimit(.minutes(10))) func noChildIsHandedAnotherChildsSocket() throws {
        let children = Mutex<[(process: Process, sockets: [String])]>([])
        defer {
            // SIGKILL: Foundation's children start with SIGTERM blocked.
            for (process, _) in children.withLock({ $0 }) where process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        onThreads(4) { _ in
            for _ in 0..<100 {
                let child = Process()
                child.executableURL = URL(fileURLWithPath: "/bin/sleep")
                child.arguments = ["30"]
                for handle in [\Process.standardInput, \.standardOutput, \.standardError] { child[keyPath: handle] = FileHandle.nullDevice }
                guard (try? ChildLaunch.run(child)) != nil else { continue }
                // Its descriptors above 2 as it runs (posix_spawn returns once it has been executed).
                let folder = "/proc/\(child.processIdentifier)/fd"
                let sockets = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
                    .filter { (Int($0) ?? 0) > 2 }
                    .compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\($0)") }
                    .filter { $0.hasPrefix("socket:") || $0.hasPrefix("pipe:") }
                children.withLock { $0.append((child, sockets)) }
            }
        }
        let all = children.withLock { $0 }
        #expect(all.count == 400)
        let handed = all.filter { $0.sockets.count != 1 }
        #expect(handed.isEmpty, "\(handed.count) of \(all.count) children held more than their own socket: \(handed.map(\.sockets).prefix(3))")
    }
}
