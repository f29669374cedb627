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

    /// Starts `argv` (its first element the program's path) with `posix_spawn` while no other child
    /// is being started, with the file actions `setUp` adds, and every signal unblocked (Foundation's
    /// threads block most). Returns the child's id. Descriptors it should not hold must be
    /// close-on-exec.
    public static func spawn(_ argv: [String], _ setUp: (inout posix_spawn_file_actions_t) -> Void) throws(SpawnError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        setUp(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let arguments = argv.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        let spawned = exclusively { posix_spawn(&pid, argv[0], &actions, &attributes, arguments, environ) }
        guard spawned == 0 else { throw SpawnError(code: spawned) }
        return pid
    }

    /// Why `spawn` could not start a child: `posix_spawn`'s error number.
    public struct SpawnError: Error, CustomStringConvertible {
        public let code: Int32
        public var description: String { String(cString: strerror(code)) }
    }
}
