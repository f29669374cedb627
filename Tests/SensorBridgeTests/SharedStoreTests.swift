import Foundation
import SensorBridge
import SensorCore
import SensorTestSupport
import Synchronization
import Testing
import Workouts
import WorkoutStore
import Outputs

/// A PostgreSQL store shared by many bridges (`--store postgresql://...`, `sync --to`), on a real
/// server: replays saving into one database at once, `sync` run twice and cut off by `kill -9`,
/// and the server going away during a save.
@Suite(.enabled(if: PostgreSQLServer.unavailableReason == nil, "\(PostgreSQLServer.unavailableReason ?? "")"))
final class SharedStoreTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-shared-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func capture(_ name: String) -> String { ReplayCommandTests.captures.appendingPathComponent(name).path }

    /// A bridge's environment: its own home, so its own store (the journal of a shared store).
    func bridge(_ name: String) -> [String: String] { ["TZ": "UTC", "HOME": folder.appendingPathComponent(name).path] }

    /// The store at a bridge's default path.
    func localStore(of name: String) -> String { folder.appendingPathComponent("\(name)/.local/share/sensorbridge/workouts.sqlite").path }

    /// Four bridges replay into one database at the same moment; each workout is there once, with
    /// its bridge, and equal to the same replay saved into SQLite.
    @Test(.timeLimit(.minutes(10))) func fourReplaysSavingAtOnceAreAllThereAndEqualTheirSQLiteTwins() throws {
        let url = try PostgreSQLServer.shared().makeDatabase()
        let captures = ["run-30min-hr.jsonl", "ride-60min-hr-power.jsonl", "multisport-bike-run.jsonl", "run-30min-hr.jsonl"]
        let twins = folder.appendingPathComponent("twins.sqlite").path
        for (index, name) in captures.enumerated() {
            let twin = runCLI(
                ["replay", capture(name), "--save", "--store", twins, "--bridge-id", "room-\(index + 1)"] + ReplayCommandTests.profile)
            try #require(twin.status == .success, "\(twin.errors)")
        }
        let results = Mutex([(status: SensorBridge.ExitStatus, output: String, errors: String)?](repeating: nil, count: captures.count))
        let paths = captures.map(capture)
        let environments = captures.indices.map { bridge("room-\($0 + 1)") }
        onThreads(captures.count) { index in
            let run = runCLI(
                ["replay", paths[index], "--save", "--store", url, "--bridge-id", "room-\(index + 1)"]
                    + ReplayCommandTests.profile, environment: environments[index])
            results.withLock { $0[index] = run }
        }
        for (index, result) in results.withLock({ $0 }).enumerated() {
            let result = try #require(result)
            #expect(result.status == .success, "\(result.errors)")
            #expect(result.errors.contains("journaling workout 1 in \(localStore(of: "room-\(index + 1)"))"), "\(result.errors)")
            #expect(result.output.contains("Saved as workout"), "\(result.output)")
        }

        let shared = try WorkoutStore(address: try StoreAddress.parse(url))
        let twinStore = try WorkoutStore(path: twins)
        let listings = try shared.workouts()
        #expect(listings.count == 4)
        #expect(Set(listings.map(\.identity.bridge.rawValue)) == ["room-1", "room-2", "room-3", "room-4"])
        for twin in try twinStore.workouts() {
            let listing = try #require(listings.first { $0.identity.bridge == twin.identity.bridge })
            #expect(try shared.workout(listing.id) == twinStore.workout(twin.id), "\(twin.identity.bridge)")
            // The bridge keeps its own copy, under the same UUID.
            let local = try WorkoutStore(path: localStore(of: twin.identity.bridge.rawValue))
            #expect(try local.workouts().map(\.identity.uuid) == [listing.identity.uuid])
        }

        // The commands over the store take the URL as they take a path.
        let list = runCLI(["workouts", "list", "--store", url], environment: ["TZ": "UTC"])
        #expect(list.status == .success && list.output.split(separator: "\n").count == 5, "\(list.output)\(list.errors)")
        let first = try #require(listings.first)
        let shown = runCLI(["workouts", "show", first.identity.uuidText, "--json", "--store", url])
        #expect(shown.status == .success, "\(shown.errors)")
        #expect(try JSONValue(parsing: shown.output)["bridge"]?.stringValue == first.identity.bridge.rawValue)
        let exported = runCLI(["export", "\(first.id)", "--format", "csv", "-o", "-", "--store", url])
        #expect(exported.status == .success && exported.output.hasPrefix("time"), "\(exported.errors)")
        // Time in zone over the workouts, re-bucketed from the samples: as the SQLite twins give it.
        let report = ["workouts", "zones", "--quantity", "heart-rate", "--by", "month", "--zones", "120,140,160", "--json"]
        let zones = runCLI(report + ["--store", url], environment: ["TZ": "UTC"])
        #expect(zones.status == .success, "\(zones.errors)")
        #expect(zones.output == runCLI(report + ["--store", twins], environment: ["TZ": "UTC"]).output)
        #expect(zones.output.contains("zoneDurations") || zones.output.contains("duration"), "\(zones.output)")
        let deleted = runCLI(["workouts", "delete", "\(first.id)", "--yes", "--store", url])
        #expect(deleted.status == .success, "\(deleted.errors)")
        #expect(try shared.workouts().count == 3)
    }

    /// The README's "More than one box" examples, on a database of the test server standing for
    /// the README's URL.
    @Test func theREADMESharedStoreExamplesPrintWhatTheREADMEShows() throws {
        let url = try PostgreSQLServer.shared().makeDatabase()
        let name = try WorkoutStore(address: try StoreAddress.parse(url)).path
        let readmeURL = "postgresql://rides@db.example/rides"
        let environment = bridge("garage")
        let examples = try readmeExamples(under: "## More than one box")
        #expect(examples.count == 7)
        for (command, shown) in examples {
            let plain = command.replacingOccurrences(of: " +#.*$", with: "", options: .regularExpression)
            let words = plain.split(separator: " ").dropFirst().map { word in
                word == readmeURL ? url : word.hasPrefix("Captures/") ? capture(String(word.dropFirst(9))) : String(word)
            }
            let result = runCLI(words, environment: environment)
            #expect(result.status == .success, "\(plain): \(result.errors)")
            var printed = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)[...]
            for line in shown where line != "..." && !line.isEmpty {
                let expected = line.replacingOccurrences(of: readmeURL, with: name)
                    .replacingOccurrences(of: "/home/me/.local/share/sensorbridge/workouts.sqlite", with: localStore(of: "garage"))
                guard let found = printed.firstIndex(of: expected) else {
                    Issue.record("\(plain) did not print, in order: \(expected)\n\(result.output)")
                    break
                }
                printed = printed[(found + 1)...]
            }
        }
    }

    /// Two bridges each with a recording cut off (as by a crash) in their own store: `workouts
    /// recover` with the shared store on one bridge finishes that bridge's and copies it, and
    /// leaves the other's alone, on its box and in the database.
    @Test(.timeLimit(.minutes(10))) func recoveryOnOneBridgeNeverTouchesAnothers() throws {
        let url = try PostgreSQLServer.shared().makeDatabase()
        let ride = try SyntheticRide.workout(seconds: 600, seed: 3, startDate: Date(timeIntervalSince1970: 1_793_620_800))
        for name in ["hall", "garage"] {
            let path = localStore(of: name)
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let recorder = try WorkoutRecorder(
                path: path,
                start: RecordingStart(
                    startDate: ride.startDate, start: ride.start, activityType: .cycling, zoneConfigurations: [:],
                    sensors: ride.sensors, bridge: BridgeID(rawValue: name)!))
            _ = recorder.record { batch in for sample in ride.samples.prefix(2000) { batch.append(sample) } }
            try recorder.flush()
            // Let go unfinished: the journal stays as a crash leaves it.
        }
        let recovered = runCLI(["workouts", "recover", "--store", url], environment: bridge("hall"))
        #expect(recovered.status == .success, "\(recovered.errors)")
        #expect(recovered.output.contains("Recovered workout 1 (cycling, "), "\(recovered.output)")
        #expect(recovered.output.contains("Copied it to postgresql://"), "\(recovered.output)")
        let shared = try WorkoutStore(address: try StoreAddress.parse(url))
        #expect(try shared.workouts().map(\.identity.bridge.rawValue) == ["hall"])
        #expect(try WorkoutStore(path: localStore(of: "garage")).unfinishedWorkouts().count == 1)
        let copied = try #require(try shared.latestWorkoutID())
        #expect(try shared.samples(of: copied).count == 2000)
        // The other bridge's, on its own box.
        #expect(runCLI(["workouts", "recover", "--store", url], environment: bridge("garage")).status == .success)
        #expect(try shared.workouts().map(\.identity.bridge.rawValue).sorted() == ["garage", "hall"])
    }

    /// `sync` killed (`kill -9`) after its first copies, run again to the end, then once more: each
    /// workout is in the shared store once, equal to the box's, and the last run copies nothing.
    @Test(.timeLimit(.minutes(10))) func syncKilledHalfWayThenRunTwiceCopiesEachWorkoutOnce() throws {
        let url = try PostgreSQLServer.shared().makeDatabase()
        let localPath = folder.appendingPathComponent("local.sqlite").path
        let local = try WorkoutStore(path: localPath)
        let garage = try #require(BridgeID(rawValue: "garage"))
        let total = 40
        for index in 0..<total {
            let ride = try SyntheticRide.workout(
                seconds: 1800, seed: UInt64(index + 1), startDate: Date(timeIntervalSince1970: 1_793_620_800 + Double(index) * 86_400))
            try local.save(ride, bridge: garage)
        }

        let child = try KilledChild(["sync", "--to", url, "--store", localPath], environment: ["TZ": "UTC"], until: "copied workout")
        #expect(child.sawMarker, "\(child.printed)")
        child.kill()
        #expect(child.process.terminationReason == .uncaughtSignal, "sync ended before the kill: \(child.printed)")
        let shared = try WorkoutStore(address: try StoreAddress.parse(url))
        let copiedBeforeTheKill = try shared.workouts().count
        #expect(copiedBeforeTheKill >= 1 && copiedBeforeTheKill < total, "\(copiedBeforeTheKill) copied before the kill")

        let second = runCLI(["sync", "--to", url, "--store", localPath, "--json"], environment: ["TZ": "UTC"])
        #expect(second.status == .success, "\(second.errors)")
        let summary = try JSONValue(parsing: second.output)
        #expect(summary["copied"]?.arrayValue?.count == total - copiedBeforeTheKill)
        #expect(summary["alreadyThere"] == .number(Double(copiedBeforeTheKill)))
        let copies = try shared.workouts()
        #expect(copies.count == total)
        #expect(Set(copies.map(\.identity.uuid)) == (try local.workoutUUIDs()))
        for listing in try local.workouts() {
            let copy = try #require(copies.first { $0.identity == listing.identity })
            #expect(try shared.workout(copy.id) == local.workout(listing.id))
        }

        let third = runCLI(["sync", "--to", url, "--store", localPath], environment: ["TZ": "UTC"])
        #expect(third.status == .success, "\(third.errors)")
        #expect(third.output == "Copied 0 workouts to \(shared.path); \(total) were there already.\nPeople: nothing sent; nothing taken from there.\n")
        #expect(try shared.workouts().count == total)
    }

    /// Two boxes and a shared database: athletes, their sensors and zones, the profile and a
    /// removal made on either box reach the other through `sync --to` and `sync --from`, the
    /// latest change winning; a sync run again changes nothing; `--from` copies the database's
    /// workouts to a box.
    @Test(.timeLimit(.minutes(10))) func peopleFollowBothWaysAndTheLatestChangeWins() throws {
        let url = try PostgreSQLServer.shared().makeDatabase()
        let (garage, attic) = (folder.appendingPathComponent("garage.sqlite").path, folder.appendingPathComponent("attic.sqlite").path)
        func run(_ words: [String], _ store: String) -> (output: String, errors: String) {
            let result = runCLI(words + ["--store", store], environment: ["TZ": "UTC"])
            #expect(result.status == .success, "\(words): \(result.errors)")
            return (result.output, result.errors)
        }
        func people(_ store: String) throws -> String {
            try JSONValue(parsing: run(["athletes", "list", "--json"], store).output).serialized
        }
        _ = run(["athletes", "add", "Anna", "--ftp", "250", "--hr-zones", "120,140,160,175"], garage)
        _ = run(["athletes", "assign", "Anna", "--hr", "C4:7E:11:22:33:44"], garage)
        _ = run(["replay", capture("run-30min-hr.jsonl"), "--save"], garage)
        _ = run(["athletes", "add", "Ben", "--ftp", "200"], attic)
        Thread.sleep(forTimeInterval: 0.01)
        _ = run(["profile", "set", "--ftp", "280"], attic)
        #expect(run(["sync", "--to", url], garage).output.hasSuffix("People: sent athlete Anna; nothing taken from there.\n"))
        let fromAttic = run(["sync", "--to", url], attic).output
        #expect(fromAttic.hasSuffix("People: sent the profile, athlete Ben; taken from there athlete Anna.\n"), "\(fromAttic)")
        // The garage takes Ben and the profile, and the attic's copy of the run.
        let pulled = try JSONValue(parsing: run(["sync", "--from", url, "--json"], garage).output)
        #expect(pulled["people"]?["taken"] == JSONValue.object(["profile": true, "athletes": ["Ben"], "removed": []]), "\(pulled)")
        #expect(pulled["copied"]?.arrayValue?.isEmpty == true && pulled["alreadyThere"] == 1)
        #expect(try people(garage) == people(attic))
        #expect(run(["profile", "show", "--json"], garage).output.contains("\"functionalThresholdPower\":280"))

        // Later the attic changes Anna's FTP and the garage removes Ben: each wins where it was made.
        Thread.sleep(forTimeInterval: 0.01)
        _ = run(["profile", "set", "--athlete", "Anna", "--ftp", "265"], attic)
        _ = run(["athletes", "remove", "Ben", "--yes"], garage)
        _ = run(["sync", "--to", url], attic)
        #expect(run(["sync", "--from", url], garage).output.hasSuffix("People: sent the removal of Ben; taken from there athlete Anna.\n"))
        #expect(run(["sync", "--to", url], attic).output.hasSuffix("People: nothing sent; taken from there the removal of Ben.\n"))
        #expect(try people(garage) == people(attic))
        let anna = try JSONValue(parsing: run(["athletes", "list", "--json"], garage).output)
        #expect(anna.serialized.contains("265") && !anna.serialized.contains("Ben"), "\(anna)")
        for store in [garage, attic] {
            #expect(run(["sync", "--to", url], store).output.hasSuffix("People: nothing sent; nothing taken from there.\n"))
        }
    }

    /// The server goes away while a replay saves into it: a clear error, the workout kept in the
    /// bridge's own store, and `sync` copies it once the server is back. A server already down
    /// when recording starts does not stop the recording either.
    @Test(.timeLimit(.minutes(10))) func aServerStoppedDuringASaveLeavesTheWorkoutForSync() throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let url = try server.makeDatabase()
        let environment = bridge("garage")
        let local = localStore(of: "garage")

        let result = Mutex<(status: SensorBridge.ExitStatus, output: String, errors: String)?>(nil)
        let ride = capture("ride-60min-hr-power.jsonl")
        let replay = Thread {
            let run = runCLI(
                ["replay", ride, "--pace", "1800", "--save", "--store", url]
                    + ReplayCommandTests.profile, environment: environment)
            result.withLock { $0 = run }
        }
        replay.start()
        // The replay takes 2 s once the store is open (its journal made in the bridge's own
        // store); the server goes away half way.
        let opened = Date()
        while !FileManager.default.fileExists(atPath: local), Date().timeIntervalSince(opened) < 60 {
            Thread.sleep(forTimeInterval: 0.05)
        }
        Thread.sleep(forTimeInterval: 1)
        try #require(result.withLock { $0 } == nil, "the replay ended before the server stopped")
        try server.halt()
        while result.withLock({ $0 }) == nil { Thread.sleep(forTimeInterval: 0.05) }
        let failed = try #require(result.withLock { $0 })
        #expect(failed.status == .failure)
        #expect(failed.errors.contains("could not copy the finished workout to postgresql://"), "\(failed.errors)")
        #expect(failed.errors.contains("It is saved as workout 1 in \(local); run 'sensorbridge sync --to"), "\(failed.errors)")
        #expect(try WorkoutStore(path: local).workouts().map(\.isFinished) == [true])

        // Down at the start: saved in the bridge's own store, with the command to sync later.
        let offline = runCLI(["replay", capture("run-30min-hr.jsonl"), "--save", "--store", url], environment: environment)
        #expect(offline.status == .success, "\(offline.errors)")
        #expect(offline.errors.contains("cannot reach postgresql://"), "\(offline.errors)")
        #expect(offline.errors.contains("saving into \(local) instead"), "\(offline.errors)")

        try server.start()
        let synced = runCLI(["sync", "--to", url, "--store", local], environment: ["TZ": "UTC"])
        #expect(synced.status == .success, "\(synced.errors)")
        #expect(synced.output.hasPrefix("Copied 2 workouts to postgresql://"), "\(synced.output)")
        let shared = try WorkoutStore(address: try StoreAddress.parse(url))
        let localStore = try WorkoutStore(path: local)
        #expect(try shared.workoutUUIDs() == localStore.workoutUUIDs())
    }
}
