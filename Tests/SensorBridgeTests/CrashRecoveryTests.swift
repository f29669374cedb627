import Foundation
import SensorBridge
import SensorCore
import SensorTestSupport
import Synchronization
import Testing
import Workouts
import WorkoutStore
import Zones
import Outputs

/// `kill -9` during `replay --save`, then `workouts recover` (DESIGN.md §3 "Storage"): the built
/// `sensorbridge` runs as a child process, is killed mid-replay, and the recovered workout must
/// hold every sample up to about a second (times the pace) before the kill.
@Suite struct CrashRecoveryTests {
    /// The `sensorbridge` executable of this build: beside the test bundle (Linux runs it from
    /// `.build/<triple>/debug`; macOS from inside an `.xctest` bundle there), else `.build/debug`.
    static func executable() throws -> URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
        let candidates = [
            bundle.deletingLastPathComponent(), Bundle.main.bundleURL.deletingLastPathComponent(),
            bundle.deletingLastPathComponent().deletingLastPathComponent(), package.appendingPathComponent(".build/debug"),
        ].map { $0.appendingPathComponent("sensorbridge") }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "sensorbridge; looked at \(candidates.map(\.path))"])
        }
        return found
    }

    /// The hour's ride the children replay.
    static let capture = ReplayCommandTests.captures.appendingPathComponent("ride-60min-hr-power.jsonl").path

    /// A new folder `prefix-UUID` for a test's store, and the store's path in it; the test removes it.
    static func storeFolder(_ prefix: String) throws -> (folder: URL, store: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (folder, folder.appendingPathComponent("workouts.sqlite").path)
    }

    @Test(.timeLimit(.minutes(10))) func aReplayKilledMidwayIsRecoveredUpToAboutASecondBeforeTheKill() throws {
        let pace = 60.0
        let (folder, store) = try Self.storeFolder("sensorbridge-crash")
        defer { try? FileManager.default.removeItem(at: folder) }
        let capture = Self.capture

        // The child says when it starts saving; from then on its replay clock runs.
        let child = try KilledChild(
            ["replay", capture, "--pace", "\(Int(pace))", "--save", "--store", store] + ReplayCommandTests.profile, environment: [:],
            until: "as it replays")
        #expect(child.sawMarker, "the child did not start saving")
        let started = ContinuousClock.now
        try #require(child.process.isRunning, "the child ended early: \(child.printed)")
        Thread.sleep(forTimeInterval: 2)
        let killedAfter = ContinuousClock.now - started
        child.kill()
        #expect(child.process.terminationReason == .uncaughtSignal && child.process.terminationStatus == SIGKILL)

        // The next start finds the unfinished workout.
        let listing = runCLI(["workouts", "list", "--store", store])
        #expect(listing.status == .success)
        #expect(listing.output.contains("unfinished"))
        #expect(listing.errors.contains("was interrupted"))

        let recovery = runCLI(["workouts", "recover", "--store", store])
        #expect(recovery.status == .success, "\(recovery.errors)")
        #expect(recovery.output.contains("Recovered workout 1"))
        let recovered = try WorkoutStore(path: store).workout(WorkoutID(1))

        // Every sample up to the last journal write, which was at most about a second (of real
        // time: pace seconds of ride) before the kill; nothing from after the kill.
        let replayed = (killedAfter * pace).seconds
        let last = try #require(recovered.samples.last).time.seconds
        #expect(last <= replayed + 0.2 * pace, "last sample at \(last) s, killed at \(replayed) s of ride")
        #expect(last >= replayed - 1.5 * pace, "last sample at \(last) s, killed at \(replayed) s of ride: more than about a second lost")

        // The same samples as an uninterrupted replay, up to the last one saved.
        let full = folder.appendingPathComponent("full.sqlite").path
        #expect(runCLI(["replay", capture, "--save", "--store", full] + ReplayCommandTests.profile).status == .success)
        let complete = try WorkoutStore(path: full).workout(WorkoutID(1))
        #expect(recovered.samples == Array(complete.samples.prefix(recovered.samples.count)))
        // (>=: the samples of one notification share its time, and a journal write may fall between them.)
        #expect(complete.samples[recovered.samples.count].time >= recovered.samples.last!.time)

        // Zone groups: the re-bucketing of the saved samples with the recording's zones and holds.
        let timeline = try WorkoutTimeline(start: recovered.start, end: recovered.end, pauses: recovered.pauses)
        #expect(recovered.end.seconds == last)
        #expect(Set(recovered.zoneGroupsByType.keys) == [.heartRate, .cyclingPower])
        for (type, group) in recovered.zoneGroupsByType {
            #expect(group.configuration == complete.zoneGroupsByType[type]?.configuration)
            #expect(group == WorkoutZoneGroup(rebucketing: recovered.samples, into: group.configuration, timeline: timeline))
            #expect(group.totalDuration > .zero)
        }
        #expect(runCLI(["workouts", "list", "--store", store]).errors.isEmpty)
    }

    /// `workouts list` and `show` on a workout being recorded say so, with the bridge and the
    /// process recording it, and not to recover it; once that process is gone (killed), they do.
    @Test(.timeLimit(.minutes(10))) func aWorkoutBeingRecordedIsShownAsRecordingUntilItsProcessIsGone() throws {
        let (folder, store) = try Self.storeFolder("sensorbridge-live")
        defer { try? FileManager.default.removeItem(at: folder) }
        let capture = Self.capture
        let child = try KilledChild(
            ["replay", capture, "--pace", "10", "--save", "--store", store, "--bridge-id", "garage"] + ReplayCommandTests.profile,
            environment: [:], until: "as it replays")
        #expect(child.sawMarker, "the child did not start saving: \(child.printed)")
        try #require(child.process.isRunning, "the child ended early: \(child.printed)")
        let process = child.process.processIdentifier

        let listing = runCLI(["workouts", "list", "--store", store])
        #expect(listing.status == .success, "\(listing.errors)")
        #expect(listing.output.contains("recording now on bridge garage (process \(process)): "), "\(listing.output)")
        #expect(!(listing.output + listing.errors).contains("recover"), "\(listing.output)\(listing.errors)")
        let listed = try JSONValue(parsing: runCLI(["workouts", "list", "--json", "--store", store]).output)["workouts"]?.arrayValue?.first
        #expect(listed?["recording"] == JSONValue.bool(true))
        #expect(listed?["state"] == JSONValue.string("recording"))
        #expect(listed?["recordingProcess"]?.doubleValue == Double(process))
        let shown = runCLI(["workouts", "show", "1", "--store", store])
        #expect(shown.status == .failure)
        #expect(
            shown.errors.contains("workout 1 is being recorded now by sensorbridge process \(process) on bridge garage; "),
            "\(shown.errors)")
        #expect(!shown.errors.contains("recover"), "\(shown.errors)")

        child.kill()
        let stopped = runCLI(["workouts", "list", "--store", store])
        #expect(stopped.output.contains("unfinished on bridge garage: recorded "), "\(stopped.output)")
        #expect(stopped.output.contains("run 'sensorbridge workouts recover'"), "\(stopped.output)")
        let listedAfter = try JSONValue(parsing: runCLI(["workouts", "list", "--json", "--store", store]).output)["workouts"]?.arrayValue?.first
        #expect(listedAfter?["recording"] == nil)
        #expect(listedAfter?["state"] == JSONValue.string("unfinished"))
        let shownAfter = runCLI(["workouts", "show", "1", "--store", store])
        #expect(shownAfter.errors.contains("run 'sensorbridge workouts recover'"), "\(shownAfter.errors)")
    }
}

/// The built `sensorbridge` running `arguments` as a child process, its standard error read as it
/// comes; `init` returns once it has printed `marker` (or ended, or 30 s passed), and `kill` ends
/// it with SIGKILL, as a crash or a power cut would. A child still running when the value goes is
/// killed.
final class KilledChild {
    let process = Process()
    /// Standard error as read so far, shared with the thread reading it.
    private final class Printed: Sendable { let text = Mutex("") }
    private let output = Printed()
    /// Whether the child printed the marker.
    private(set) var sawMarker = false

    init(_ arguments: [String], environment: [String: String], until marker: String) throws {
        process.executableURL = try CrashRecoveryTests.executable()
        process.arguments = arguments
        process.environment = environment
        let errors = ChildLaunch.pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let seen = DispatchSemaphore(value: 0)
        let output = output
        let reader = Thread {
            var signalled = false
            while case let data = errors.fileHandleForReading.availableData, !data.isEmpty {
                let printed = output.text.withLock { $0 += String(decoding: data, as: UTF8.self); return $0 }
                if !signalled, printed.contains(marker) {
                    signalled = true
                    seen.signal()
                }
            }
            if !signalled { seen.signal() }
        }
        try ChildLaunch.run(process)
        reader.start()
        _ = seen.wait(timeout: .now() + 30)
        sawMarker = printed.contains(marker)
    }

    /// What it printed on standard error so far.
    var printed: String { output.text.withLock { $0 } }

    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { kill() }
}
