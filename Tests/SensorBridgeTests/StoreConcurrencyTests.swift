import Foundation
import SensorTestSupport
import Testing
@testable import WorkoutStore
import Outputs

/// Processes that share a store (DESIGN.md §3 "Storage"): the built `sensorbridge` runs as child
/// processes started together, many times over, against a store that does not exist yet and
/// against a store of an older schema. Neither may lose the other's work or fail.
@Suite(.serialized) struct StoreConcurrencyTests {
    /// Rounds per test; `SENSORBRIDGE_STRESS=1` runs ten times as many.
    static let rounds = ProcessInfo.processInfo.environment["SENSORBRIDGE_STRESS"] == "1" ? 300 : 30

    /// A child process's outcome.
    struct Outcome {
        var status: Int32
        var errors: String
    }

    /// Starts every command in `commands` as a child process at once and waits (up to 60 s) for all;
    /// with `asNobody`, run by user and group 65534 through `setpriv` when the tests run as root.
    static func together(_ commands: [[String]], asNobody: Bool = false, environment: [String: String] = [:]) throws -> [Outcome] {
        let executable = try CrashRecoveryTests.executable()
        let children = try commands.map { arguments in
            let child = Process()
            if asNobody && geteuid() == 0 {
                child.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
                child.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", executable.path] + arguments
            } else {
                child.executableURL = executable
                child.arguments = arguments
            }
            child.environment = environment
            let errors = FileManager.default.temporaryDirectory.appendingPathComponent("sb-errors-\(UUID().uuidString)")
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            child.standardError = try FileHandle(forWritingTo: errors)
            child.standardOutput = FileHandle.nullDevice
            return (child, errors)
        }
        for (child, _) in children { try ChildLaunch.run(child) }
        let deadline = Date().addingTimeInterval(60)
        return children.map { child, errors in
            while child.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
            if child.isRunning {
                kill(child.processIdentifier, SIGKILL)
                child.waitUntilExit()
            }
            let text = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: errors)
            return Outcome(status: child.terminationReason == .exit ? child.terminationStatus : 128 + child.terminationStatus, errors: text)
        }
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-race-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Two `replay --save` into a store that does not exist yet: before stores were made under a
    /// temporary name and linked into place, both ran migration 1 and the loser deleted the file
    /// the winner was saving into (the store was gone in 21 to 77 of 100 rounds).
    @Test(.timeLimit(.minutes(10))) func twoProcessesCreatingAStoreBothSaveIntoIt() throws {
        let capture = try BlueZCommandTests.trace(lines: 40).path
        defer { try? FileManager.default.removeItem(atPath: capture) }
        for round in 0..<Self.rounds {
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let path = folder.appendingPathComponent("workouts.sqlite").path
            let outcomes = try Self.together(Array(repeating: ["replay", capture, "--save", "--store", path], count: 2))
            for outcome in outcomes {
                try #require(outcome.status == 0, "round \(round): \(outcome.errors)")
            }
            let saved = try WorkoutStore(path: path).workouts().map(\.id)
            try #require(saved.count == 2, "round \(round): \(saved)")
            let store = try WorkoutStore(path: path)
            try #require(try store.sqlite!.scalarText("PRAGMA integrity_check") == "ok")
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix("workouts.sqlite") }
            try #require(files.isEmpty, "round \(round): temporary files left: \(files)")
        }
    }

    /// Two `replay --save` at once into a store whose newest workout was deleted, round after
    /// round: each takes an id above every id ever given, never the deleted one nor the other's
    /// (the high-water mark is read and raised inside the inserting transaction).
    @Test(.timeLimit(.minutes(10))) func twoProcessesSavingAfterADeleteNeverReuseAnID() throws {
        let capture = try BlueZCommandTests.trace(lines: 40).path
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("workouts.sqlite").path
        var highest: Int64 = 0
        for round in 0..<5 {
            let outcomes = try Self.together(Array(repeating: ["replay", capture, "--save", "--store", path], count: 2))
            for outcome in outcomes {
                try #require(outcome.status == 0, "round \(round): \(outcome.errors)")
            }
            let store = try WorkoutStore(path: path)
            let ids = try store.workouts().map(\.id.rawValue)
            try #require(ids.filter { $0 > highest }.sorted() == [highest + 1, highest + 2], "round \(round): \(ids) after \(highest)")
            highest += 2
            try store.deleteWorkout(WorkoutID(highest))
        }
    }

    /// Two commands opening a version-1 store at once: both migrate it, one after the other; before
    /// the version was read inside the migration's transaction, the second failed every time with
    /// the schema's SQL as its message.
    @Test(.timeLimit(.minutes(10))) func twoProcessesOpeningAnOldStoreBothMigrateIt() throws {
        let fixture = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../Fixtures/store/workouts-v1.sql").standardized,
            encoding: .utf8)
        for round in 0..<Self.rounds {
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let path = folder.appendingPathComponent("workouts.sqlite").path
            let sqlite = Process()
            sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            sqlite.arguments = ["python3", "-c", "import sqlite3, sys; sqlite3.connect(sys.argv[1]).executescript(sys.stdin.read())", path]
            let input = ChildLaunch.pipe()
            sqlite.standardInput = input
            try ChildLaunch.run(sqlite)
            input.fileHandleForWriting.write(Data(fixture.utf8))
            try input.fileHandleForWriting.close()
            sqlite.waitUntilExit()
            try #require(sqlite.terminationStatus == 0)
            let outcomes = try Self.together(Array(repeating: ["workouts", "list", "--store", path], count: 2))
            for outcome in outcomes {
                try #require(outcome.status == 0, "round \(round): \(outcome.errors)")
            }
            let store = try WorkoutStore(path: path)
            try #require(try store.workouts().count == 1)
            try #require(try store.connection.userVersion == WorkoutStore.schemaVersion)
        }
    }

    /// A write-protected store is refused before SQLite opens it: SQLite would open it read-only and
    /// leave a write-protected `-shm` beside it, which then blocked every write after the file's
    /// permissions were fixed. Run as an unprivileged user (permissions do not stop root).
    @Test(.timeLimit(.minutes(10))) func aWriteProtectedStoreIsRefusedAndWorksOnceItIsWritableAgain() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        chmod(folder.path, 0o777)
        let path = folder.appendingPathComponent("workouts.sqlite").path
        let capture = try BlueZCommandTests.trace(lines: 40)
        defer { try? FileManager.default.removeItem(at: capture) }
        chmod(capture.path, 0o644)
        let replay = ["replay", capture.path, "--save", "--store", path]
        let created = try Self.together([replay], asNobody: true)[0]
        try #require(created.status == 0, "\(created.errors)")
        chmod(path, 0o444)
        let refused = try Self.together([replay], asNobody: true)[0]
        #expect(refused.status != 0)
        #expect(refused.errors.contains("the file is write-protected"), "\(refused.errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["workouts.sqlite"])
        chmod(path, 0o644)
        let again = try Self.together([replay], asNobody: true)[0]
        #expect(again.status == 0, "\(again.errors)")
        #expect(try WorkoutStore(path: path).workouts().count == 2)
    }

    /// The service's store as the system service leaves it (a 0750 folder and a 0640 file of the
    /// service's user, group `sensorbridge`; here group 65534): a member of the group lists, shows
    /// and exports its workouts, and nothing is created beside it. A mistyped --store is an error
    /// and creates nothing.
    @Test(.timeLimit(.minutes(10))) func aMemberOfTheStoresGroupReadsTheServicesStore() throws {
        try #require(geteuid() == 0, "needs root to make a store of another user")
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("workouts.sqlite").path
        let capture = try BlueZCommandTests.trace(lines: 40)
        defer { try? FileManager.default.removeItem(at: capture) }
        let saved = try Self.together([["replay", capture.path, "--save", "--store", path]])[0]
        try #require(saved.status == 0, "\(saved.errors)")
        #expect(chown(folder.path, 0, 65534) == 0 && chmod(folder.path, 0o750) == 0)
        #expect(chown(path, 0, 65534) == 0 && chmod(path, 0o640) == 0)
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.path)

        for command in [["workouts", "list"], ["workouts", "show", "latest", "--json"], ["export", "latest", "--format", "fit", "-o", "-"],
            ["workouts", "zones", "--quantity", "heart-rate", "--zones", "120,140,155,170", "--by", "week"], ["profile", "show"]]
        {
            let read = try Self.together([command + ["--store", path]], asNobody: true)[0]
            #expect(read.status == 0, "\(command): \(read.errors)")
        }
        // The README's commands, with the store from the environment.
        let fit = FileManager.default.temporaryDirectory.appendingPathComponent("ride-\(UUID().uuidString).fit").path
        for command in [["workouts", "list"], ["export", "latest", "--format", "fit", "-o", fit]] {
            let read = try Self.together([command], asNobody: true, environment: ["SENSORBRIDGE_STORE": path])[0]
            #expect(read.status == 0, "\(command): \(read.errors)")
        }
        #expect(FileManager.default.fileExists(atPath: fit))
        try FileManager.default.removeItem(atPath: fit)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == before)

        let typo = folder.appendingPathComponent("workout.sqlite").path
        let mistyped = try Self.together([["workouts", "list", "--store", typo]])[0]
        #expect(mistyped.status == 1)
        #expect(mistyped.errors.contains("there is no workout store at \(typo), and none was created"), "\(mistyped.errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == before)
    }
}
