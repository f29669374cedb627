public import Foundation
import Synchronization

/// Starting child processes from a process whose tests run in parallel.
///
/// Foundation's `Process.run` on Linux watches each child through a socket pair made without
/// close-on-exec, and closes the parent's other descriptors in the child only up to the highest one
/// open when that launch began. A socket pair or a pipe made by another thread during a launch
/// therefore passes to that child, which holds it for as long as it runs: another child's exit is
/// not seen, and a pipe does not end, until the unrelated child exits (DESIGN.md §6). So every
/// launch, and every pipe made for a child, goes through one lock: none is made during another's
/// launch.
public enum ChildLaunch {
    private static let lock = Mutex(())

    /// Runs `body` while no child is being started and no pipe for one is being made.
    public static func exclusively<T>(_ body: () throws -> T) rethrows -> T {
        try lock.withLock { _ in try body() }
    }

    /// Starts `process` (`Process.run`) while no other child is being started.
    public static func run(_ process: Process) throws {
        try exclusively { try process.run() }
    }

    /// A pipe for a child's standard input, output or error.
    public static func pipe() -> Pipe {
        exclusively { Pipe() }
    }
}
