import Foundation
@testable import SensorBridge
import SensorCore
import SensorTestSupport
import Testing
import WorkoutStore
import Outputs

/// `sensorbridge athletes` and `--athlete` on the commands that use a profile, against stores in
/// temporary folders (and the mock BlueZ for `record`).
@Suite final class AthletesCommandTests {
    let folder: URL
    let store: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-athletes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = folder.appendingPathComponent("workouts.sqlite").path
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func run(_ arguments: [String], status: SensorBridge.ExitStatus = .success) -> (output: String, errors: String) {
        let run = runCLI(arguments + ["--store", store], environment: ["TZ": "UTC"])
        #expect(run.status == status, "\(arguments): \(run.output) \(run.errors)")
        return (run.output, run.errors)
    }

    @Test func athletesAreAddedAssignedListedAndRemoved() throws {
        _ = run(["profile", "set", "--ftp", "250"])
        #expect(run(["athletes", "list"]).output.hasPrefix("No athletes in "))
        #expect(
            run(["athletes", "add", "Anna", "--age", "35", "--resting-hr", "52", "--ftp", "230", "--hr-zones", "120,140,155,170"]).output
                == "Added athlete Anna: age 35, resting HR 52 bpm, FTP 230 W.\n")
        #expect(run(["athletes", "add", "Ben"]).output.contains("Set a profile with 'sensorbridge profile set --athlete Ben ...'"))
        #expect(run(["athletes", "add", "anna"], status: .failure).errors.contains("there is an athlete 'Anna' already"))
        #expect(
            run(["athletes", "assign", "anna", "--hr", "c4:7e:11:22:33:44", "--power", "E8-FE-6E-91-9F-16"]).output
                == "Assigned to Anna: heart rate C4:7E:11:22:33:44, power E8:FE:6E:91:9F:16.\n")
        _ = run(["athletes", "assign", "Ben", "--power", "E8:FE:6E:91:9F:16"])
        #expect(
            run(["athletes", "list"]).output == """
                Anna: age 35, resting HR 52 bpm, FTP 230 W; preferred heart-rate zones 120,140,155,170; heart rate C4:7E:11:22:33:44
                Ben: no profile; power E8:FE:6E:91:9F:16

                """)
        let listed = try #require(try JSONValue(parsing: run(["athletes", "list", "--json"]).output)["athletes"]?.arrayValue)
        #expect(listed.map { $0["name"] } == ["Anna", "Ben"])
        #expect(listed[0]["profile"]?["functionalThresholdPower"] == 230)
        #expect(listed[0]["preferredZones"]?["heartRate"]?["source"] == "user")
        #expect(listed[0]["sensors"]?["heartRate"] == "C4:7E:11:22:33:44" && listed[0]["sensors"]?["power"] == .null)

        // Profile and zones commands reach the athlete's, not the box's.
        _ = run(["profile", "set", "--athlete", "BEN", "--ftp", "300"])
        _ = run(["zones", "set", "power", "150,200,250", "--athlete", "Ben"])
        #expect(try JSONValue(parsing: run(["profile", "show", "--json", "--athlete", "Ben"]).output)["functionalThresholdPower"] == 300)
        #expect(try JSONValue(parsing: run(["profile", "show", "--json"]).output)["functionalThresholdPower"] == 250)
        #expect(try JSONValue(parsing: run(["zones", "show", "--json"]).output)["cyclingPower"]?["source"] == "system")
        #expect(run(["zones", "show", "--athlete", "Ben"]).output.contains("Power zones (user)"))
        #expect(run(["profile", "show", "--athlete", "Cleo"], status: .failure).errors.contains("there is no athlete 'Cleo'"))

        #expect(run(["athletes", "remove", "anna", "--yes"]).output == "Removed athlete Anna; their workouts stay.\n")
        #expect(run(["athletes", "list"]).output.hasPrefix("Ben: "))
        #expect(run(["athletes", "remove", "Anna", "--yes"], status: .failure).errors.contains("there is no athlete 'Anna'"))
    }

    /// Names match without regard to ASCII case, as the store compares them: `É` and `é` are two
    /// names, and each finds its own athlete.
    /// Names match as a person compares them (issue 31): é and É are one letter, however written.
    @Test func namesMatchAsAPersonComparesThem() throws {
        _ = run(["athletes", "add", "Élodie", "--ftp", "210"])
        #expect(
            run(["athletes", "add", "e\u{301}lodie", "--ftp", "260"], status: .failure).errors
                .contains("there is an athlete 'Élodie' already"))
        #expect(try JSONValue(parsing: run(["profile", "show", "--json", "--athlete", "éLODIE"]).output)["functionalThresholdPower"] == 210)
        #expect(try JSONValue(parsing: run(["profile", "show", "--json", "--athlete", "Élodie"]).output)["functionalThresholdPower"] == 210)
        let ride = ReplayCommandTests.captures.appendingPathComponent("run-30min-hr.jsonl").path
        #expect(try JSONValue(parsing: run(["replay", ride, "--json", "--athlete", "ÉLODIE"]).output)["workout"]?["profile"]?["functionalThresholdPower"] == 210)
    }

    @Test func badNamesAndAddressesSayWhatToGive() {
        #expect(run(["athletes", "add", " Anna"], status: .usage).errors.contains("give a name of 1 to 64 characters"))
        #expect(run(["athletes", "add"], status: .usage).errors.contains("give the athlete's name"))
        _ = run(["athletes", "add", "Anna"])
        #expect(run(["athletes", "assign", "Anna", "--hr", "HRM-Pro"], status: .usage).errors.contains("is not a Bluetooth address"))
        #expect(run(["athletes", "assign", "Anna"], status: .usage).errors.contains("give the sensors"))
        #expect(run(["athletes", "frobnicate"], status: .usage).errors.contains("give a subcommand: add, list, assign or remove"))
        #expect(run(["replay", ReplayCommandTests.captures.appendingPathComponent("run-30min-hr.jsonl").path, "--athlete", "A\tB"], status: .usage)
            .errors.contains(#"--athlete 'A\tB': give a name"#))  // the tab shown, not acted on
    }

    /// A replay saved for an athlete is zoned with their zones and listed under their name.
    @Test func replayForAnAthleteUsesTheirZonesAndKeepsTheirName() throws {
        _ = run(["athletes", "add", "Anna", "--hr-zones", "100,110,120,130"])
        let ride = ReplayCommandTests.captures.appendingPathComponent("ride-60min-hr-power.jsonl").path
        let saved = try JSONValue(parsing: run(["replay", ride, "--save", "--json", "--athlete", "anna"]).output)
        #expect(saved["athlete"] == "Anna")
        #expect(saved["workout"]?["zoneGroups"]?["heartRate"]?["configuration"]?["source"] == "user")
        let boundaries = saved["workout"]?["zoneGroups"]?["heartRate"]?["configuration"]?["zones"]?.arrayValue?.compactMap { $0["maximum"]?.doubleValue }
        #expect(boundaries == [100, 110, 120, 130])
        _ = run(["replay", ride, "--save"])
        let listed = try JSONValue(parsing: run(["workouts", "list", "--json", "--athlete", "ANNA"]).output)["workouts"]?.arrayValue
        #expect(listed?.map { $0["id"] } == [1] && listed?.first?["athlete"] == "Anna")
        #expect(run(["workouts", "show", "1"]).output.contains(", recorded by bridge \(BridgeID.hostDefault) for Anna)\n"))
        #expect(try JSONValue(parsing: run(["workouts", "show", "2", "--json"]).output)["athlete"] == .null)
    }

    /// Without --athlete, `workouts list` shows whose each workout is, and `workouts load`, whose
    /// fitness and fatigue would add several riders' loads together, asks for --athlete NAME or
    /// --all-athletes once the workouts are of more than one rider.
    @Test func listShowsWhoseAndLoadAsksWhoseWhenSeveralRode() throws {
        _ = run(["athletes", "add", "Anna", "--age", "35", "--resting-hr", "52", "--ftp", "230"])
        _ = run(["athletes", "add", "Ben", "--ftp", "300"])
        let ride = ReplayCommandTests.captures.appendingPathComponent("ride-60min-hr-power.jsonl").path
        let jog = ReplayCommandTests.captures.appendingPathComponent("run-30min-hr.jsonl").path
        _ = run(["replay", ride, "--save"])  // 1: the box's own profile
        // One rider so far: no athlete column, and the load needs no --athlete.
        #expect(!run(["workouts", "list"]).output.contains("Athlete"))
        _ = run(["workouts", "load", "--to", "2026-11-03"])
        _ = run(["replay", ride, "--save", "--athlete", "anna"])  // 2
        _ = run(["replay", jog, "--save", "--athlete", "Ben"])  // 3, the day before
        let rows = run(["workouts", "list"]).output.split(separator: "\n").map(String.init)
        #expect(rows.first?.hasSuffix("    NP  Athlete  Bridge") == true, "\(rows)")
        #expect(rows[1].hasPrefix("   3  ") && rows[1].hasSuffix("  Ben      \(BridgeID.hostDefault)"), "\(rows)")
        #expect(rows[2].hasPrefix("   1  ") && rows[2].hasSuffix("  -        \(BridgeID.hostDefault)"), "\(rows)")
        #expect(rows[3].hasPrefix("   2  ") && rows[3].hasSuffix("  Anna     \(BridgeID.hostDefault)"), "\(rows)")
        #expect(run(["workouts", "list", "--all-athletes"]).output == rows.joined(separator: "\n") + "\n")
        let anna = run(["workouts", "list", "--athlete", "ANNA"]).output
        #expect(!anna.contains("Athlete") && anna.split(separator: "\n").count == 2, "\(anna)")
        #expect(run(["workouts", "list", "--athlete", "Anna", "--all-athletes"], status: .usage).errors.contains("--all-athletes"))

        let refused = run(["workouts", "load", "--to", "2026-11-03"], status: .usage).errors
        #expect(refused.contains("several riders (Anna, Ben and your own profile)"), "\(refused)")
        #expect(refused.contains("give --athlete NAME for one rider's, or --all-athletes"), "\(refused)")
        let all = try JSONValue(parsing: run(["workouts", "load", "--to", "2026-11-03", "--all-athletes", "--json"]).output)
        #expect(all["workouts"]?.arrayValue?.map { $0["id"] } == [3, 1, 2])
        #expect(all["workouts"]?.arrayValue?.map { $0["athlete"] } == ["Ben", .null, "Anna"])
        let hers = try JSONValue(parsing: run(["workouts", "load", "--to", "2026-11-03", "--athlete", "anna", "--json"]).output)
        #expect(hers["workouts"]?.arrayValue?.map { $0["id"] } == [2])
        #expect(run(["workouts", "load", "--athlete", "Anna", "--all-athletes"], status: .usage).errors.contains("--all-athletes"))
        // The completion and the manual know the option.
        #expect(runCLI(["completion", "bash"]).output.contains("--all-athletes"))
        #expect(runCLI(["man"]).output.contains("all\\-athletes"))
    }

    /// `record --athlete NAME` without --hr or --power records the athlete's assigned sensors
    /// (the mock's HRM-Pro and Assioma) with the athlete's zones.
    @Test(.timeLimit(.minutes(10)), .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
    func recordForAnAthleteTakesTheirSensors() throws {
        _ = run(["athletes", "add", "Anna", "--hr-zones", "100,110,120,130"])
        _ = run(["athletes", "assign", "Anna", "--hr", "C4:7E:11:22:33:44", "--power", "E8:FE:6E:91:9F:16"])
        _ = run(["athletes", "add", "Ben"])
        let mock = try MockBlueZ(trace: try BlueZCommandTests.trace(lines: 40), speed: 4)
        defer { mock.stop() }
        let environment = mock.environment.merging(["SENSORBRIDGE_STORE": store]) { $1 }
        let recorded = runCLI(["record", "--athlete", "Anna", "--duration", "2", "--json"], environment: environment)
        #expect(recorded.status == .success, "\(recorded.errors)")
        let json = try JSONValue(parsing: recorded.output)
        #expect(json["athlete"] == "Anna")
        #expect(json["workout"]?["statistics"]?["heartRate"] != nil && json["workout"]?["statistics"]?["cyclingPower"] != nil)
        #expect(json["workout"]?["zoneGroups"]?["heartRate"]?["configuration"]?["source"] == "user")
        let none = runCLI(["record", "--athlete", "Ben", "--duration", "2"], environment: environment)
        #expect(none.status == .usage)
        #expect(none.errors.contains("Ben has no sensors assigned: give --hr and/or --power"))
    }
}
