import Foundation
@testable import SensorBridge
import SensorCore
import SensorTestSupport
import Testing
import WorkoutStore
import Outputs

/// `record`'s defaults and its sensor roles, against the mock BlueZ: it saves unless told not to
/// and says where; a sensor must offer a service of the role it is given for.
@Suite(.serialized, .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
struct RecordOptionsTests {
    @Test(.timeLimit(.minutes(10))) func recordWithNoFlagsSavesAndSaysWhere() throws {
        let mock = try MockBlueZ(trace: try BlueZCommandTests.trace(lines: 40), speed: 4)
        defer { mock.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rec-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("workouts.sqlite").path
        let run = runCLI(
            ["record", "--hr", "HRM-Pro", "--power", "Assioma", "--duration", "2"],
            environment: mock.environment.merging(["SENSORBRIDGE_STORE": store]) { $1 })
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.output.contains("Saved as workout 1 in \(store)."), "\(run.output)")
        #expect(try WorkoutStore(path: store).workouts().map(\.id) == [WorkoutID(1)])
    }

    @Test func aSensorForARoleItDoesNotOfferIsRefusedNamingWhatItOffers() throws {
        let mock = try MockBlueZ(trace: try BlueZCommandTests.trace(lines: 10))
        defer { mock.stop() }
        let run = runCLI(["record", "--power", "HRM-Pro", "--no-save"], environment: mock.environment)
        #expect(run.status == .usage)
        #expect(
            run.errors.contains("--power HRM-Pro: HRM-Pro offers no cycling power (it offers heart rate (180D), battery (180F))"),
            "\(run.errors)")
    }

    /// A power meter measures cadence too: given for both roles it is one link, and its cadence counts.
    @Test(.timeLimit(.minutes(10))) func oneDeviceMayTakeTwoRolesItOffers() throws {
        let mock = try MockBlueZ(trace: try BlueZCommandTests.trace(lines: 60))
        defer { mock.stop() }
        let run = try BlueZCommandTests.record(mock, ["--power", "Assioma", "--cadence", "Assioma", "--hr", "HRM-Pro", "--json"])
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.received == run.played)
        let statistics = try JSONValue(parsing: run.output)["workout"]?["statistics"]
        #expect((statistics?["cyclingPower"]?["count"]?.doubleValue ?? 0) > 0)
        #expect(run.errors.components(separatedBy: "Assioma connected").count == 2, "one link: \(run.errors)")
    }

    /// Bad values for the new options are usage errors that say what to give; good ones parse.
    @Test func autoPauseAndAutoLapValues() throws {
        for (option, value, message) in [
            ("--auto-lap", "5x", "--auto-lap 5x: give a duration such as 300, 90s, 5m or 1h30m"),
            ("--auto-lap", "5", "--auto-lap 5: give a duration from 10 s to 24 h"),
            ("--auto-pause", "soon", "--auto-pause soon: give off, or the seconds of stillness that pause"),
        ] {
            let run = runCLI(["record", "--hr", "HRM-Pro", "--no-save", option, value])
            #expect(run.status == .usage)
            #expect(run.errors.contains(message), "\(run.errors)")
        }
        #expect(try WorkoutSetup.duration("1h30m", label: "--auto-lap") == .seconds(5400))
        #expect(try WorkoutSetup.duration("90s", label: "--auto-lap") == .seconds(90))
        #expect(try WorkoutSetup.duration("300", label: "--auto-lap") == .seconds(300))
        #expect(try WorkoutSetup.duration("2.5m", label: "--auto-lap") == .seconds(150))
    }
}
