import Foundation
import SensorBridge
import SensorCore
import SensorTestSupport
import Testing
import WorkoutStore
import Outputs

/// The disk holding the store fills while `record --save` runs, on a real (small) full file
/// system: the failure is shown at once, recording goes on in memory and into the trace, and the
/// end prints the workout and says exactly what was saved and how to finish it.
@Suite(
    .serialized, .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"),
    .enabled(if: SmallFileSystem.unavailableReason == nil, "\(SmallFileSystem.unavailableReason ?? "")"))
struct DiskFullTests {
    @Test(.timeLimit(.minutes(10))) func aDiskThatFillsWhileRecordingIsShownAndTheEndSaysWhatWasSaved() throws {
        let disk = try SmallFileSystem(megabytes: 4)
        defer { disk.remove() }
        let store = disk.path + "/workouts.sqlite"
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("ride-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let source = try BlueZCommandTests.trace(lines: 100)  // about 20 s of ride, played in 10 s
        let mock = try MockBlueZ(trace: source, speed: 2)
        defer { mock.stop() }
        let recording = BlueZCommandTests.Recording(
            mock, SensorFaultTests.sensors + ["--save", "--store", store, "--trace", trace])
        // Some of the ride is journaled first.
        Thread.sleep(forTimeInterval: 4)
        disk.fill()
        let played = try #require(mock.waitUntilPlayed(timeout: .seconds(60)))
        recording.waitForNotifications(played)
        recording.control.stop()
        let (status, output, errors) = recording.waitForExit()

        #expect(status == .failure)
        #expect(errors.contains("cannot save workout 1: the disk holding \(store) is full; recording goes on in memory"), "\(errors)")
        #expect(errors.contains("could not save the finished workout: the disk holding \(store) is full. Workout 1 is saved"), "\(errors)")
        #expect(errors.contains("run 'sensorbridge workouts recover --store \(store)'"), "\(errors)")
        #expect(errors.contains("or 'sensorbridge replay \(trace) --save --store \(store)'"), "\(errors)")
        // The workout is printed all the same, with everything received.
        let workout = try JSONValue(parsing: output)["workout"]
        #expect((workout?["statistics"]?["cyclingPower"]?["count"]?.doubleValue ?? 0) > 50)

        // With space again, the journal finishes the workout up to where it was saved...
        disk.free()
        let recovery = runCLI(["workouts", "recover", "--store", store])
        #expect(recovery.status == .success, "\(recovery.errors)")
        let recovered = try WorkoutStore(path: store).workout(WorkoutID(1))
        #expect(recovered.samples.count > 0)
        let recoveredPower = recovered.samples.filter { $0.type == .cyclingPower }.count
        #expect(Double(recoveredPower) < workout?["statistics"]?["cyclingPower"]?["count"]?.doubleValue ?? 0)
        // ...and the trace, which the full disk did not hold, has the whole ride.
        #expect(try BlueZCommandTests.notifications(URL(fileURLWithPath: trace)) == (try BlueZCommandTests.notifications(source)))
    }

    /// Space comes back before the end: what waited in memory is written, and the workout is saved
    /// whole.
    @Test(.timeLimit(.minutes(10))) func aDiskFreedBeforeTheEndGetsEverythingSaved() throws {
        let disk = try SmallFileSystem(megabytes: 4)
        defer { disk.remove() }
        let store = disk.path + "/workouts.sqlite"
        let mock = try MockBlueZ(trace: try BlueZCommandTests.trace(lines: 100), speed: 2)
        defer { mock.stop() }
        let recording = BlueZCommandTests.Recording(mock, SensorFaultTests.sensors + ["--save", "--store", store])
        Thread.sleep(forTimeInterval: 3)
        disk.fill()
        Thread.sleep(forTimeInterval: 3)
        disk.free()
        let played = try #require(mock.waitUntilPlayed(timeout: .seconds(60)))
        recording.waitForNotifications(played)
        recording.control.stop()
        let (status, output, errors) = recording.waitForExit()

        #expect(status == .success, "\(errors)")
        let failing = try #require(errors.range(of: "cannot save workout 1: the disk holding \(store) is full"), "\(errors)")
        let again = try #require(errors.range(of: "saving workout 1 again; everything recorded so far is saved"), "\(errors)")
        #expect(failing.upperBound < again.lowerBound)
        let printed = try JSONValue(parsing: output)["workout"]?["statistics"]?["cyclingPower"]?["count"]?.doubleValue
        let saved = try WorkoutStore(path: store).workout(WorkoutID(1)).samples.filter { $0.type == .cyclingPower }.count
        #expect(printed == Double(saved))
    }
}
