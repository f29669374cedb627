import Foundation
import SensorTestSupport
import Testing
@testable import WorkoutStore

/// A new store is built as `.NAME.new-PID-RANDOM` and linked into place; a process killed with
/// `kill -9` meanwhile leaves that temporary behind. The next open of the store removes those of
/// processes that have ended, and keeps those of running processes, which may be creating the
/// store at that moment.
@Suite struct AbandonedTemporaryTests {
    /// Runs `script` in `/bin/sh` in `folder`, which kills itself with SIGKILL; returns its PID.
    static func killedShell(_ script: String, in folder: String) throws -> pid_t {
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", script + "; kill -9 $$"]
        shell.currentDirectoryURL = URL(fileURLWithPath: folder)
        try ChildLaunch.run(shell)
        shell.waitUntilExit()
        #expect(shell.terminationReason == .uncaughtSignal && shell.terminationStatus == SIGKILL)
        return shell.processIdentifier
    }

    @Test(arguments: [false, true])
    func theTemporariesOfEndedProcessesAreRemovedOnTheNextOpen(storeExists: Bool) throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        if storeExists { _ = try WorkoutStore(path: path) }
        // A process killed while it built the store: the temporary and SQLite's files beside it.
        let killed = try Self.killedShell(
            "for s in '' -wal -shm -journal; do echo x > .workouts.sqlite.new-$$-1a2b$s; done", in: folder.path)
        let abandoned = ["", "-wal", "-shm", "-journal"].map { ".workouts.sqlite.new-\(killed)-1a2b\($0)" }
        // Another process, running: its temporary may be a store being built this moment.
        let running = Process()
        running.executableURL = URL(fileURLWithPath: "/bin/sleep")
        running.arguments = ["600"]
        try ChildLaunch.run(running)
        defer {
            // SIGKILL: the test process may ignore SIGTERM, and its children inherit that.
            kill(running.processIdentifier, SIGKILL)
            running.waitUntilExit()
        }
        let kept = [
            ".workouts.sqlite.new-\(running.processIdentifier)-3c4d", ".workouts.sqlite.new-\(running.processIdentifier)-3c4d-wal",
            ".workouts.sqlite.new-\(getpid())-5e6f",
            // Another store's, and names that are not a temporary of this one's.
            ".other.sqlite.new-\(killed)-7a8b", ".workouts.sqlite.new-\(killed)", ".workouts.sqlite.new-\(killed)-zz",
            ".workouts.sqlite.new-\(killed)-1a2b-notes", ".workouts.sqlite.new-+\(killed)-1a2b", "workouts.sqlite.new-\(killed)-1a2b",
        ]
        for name in kept { #expect(FileManager.default.createFile(atPath: folder.file(name), contents: Data("x".utf8))) }
        #expect(Set(abandoned).isSubset(of: try FileManager.default.contentsOfDirectory(atPath: folder.path)))

        let store = try WorkoutStore(path: path)
        #expect(try store.workouts().isEmpty)
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        #expect(names.isDisjoint(with: abandoned), "\(names.sorted())")
        #expect(Set(kept).isSubset(of: names), "\(names.sorted())")
    }

    /// A store opened only for reading removes nothing beside it.
    @Test func readingAStoreRemovesNothing() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        _ = try WorkoutStore(path: path)
        let killed = try Self.killedShell("echo x > .workouts.sqlite.new-$$-1a2b", in: folder.path)
        _ = try WorkoutStore(readingAt: path)
        #expect(FileManager.default.fileExists(atPath: folder.file(".workouts.sqlite.new-\(killed)-1a2b")))
    }
}
