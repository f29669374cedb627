import Foundation
import SensorCore
import Testing
import WorkoutStore

@testable import SensorBridge

/// `sensorbridge plan`: the README's example, the JSON form with the profile's FTP, and what is
/// refused; a plan ridden by `replay --plan`, stored and shown.
@Suite struct PlanCommandTests {
    static let rampPlan = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Captures/ramp-check.zwo").standardized.path
    static let rampRide = ReplayCommandTests.captures.appendingPathComponent("ramp-25min-hr-power.jsonl").path

    /// The 25-minute ramp (100 W rising 10 W a minute) ridden to a .zwo plan for FTP 250 W: a lap
    /// per step at the planned instants, each step's target (the warm-up's ramp met all along, the
    /// 225 W step while the ramp passes through its band, the 300 W intervals only the second
    /// time, the cool-down never), stored and shown by `workouts show`.
    @Test func aZwiftPlanReplayedIsALapPerStepWithItsTimeInTarget() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("workouts.sqlite").path
        let replayed = runCLI(["replay", Self.rampRide, "--plan", Self.rampPlan, "--json", "--save", "--store", store] + ReplayCommandTests.profile)
        #expect(replayed.status == .success, "\(replayed.errors)")
        let workout = try JSONValue(parsing: replayed.output)["workout"] ?? .null
        #expect(workout["laps"]?.arrayValue?.map { $0["start"]?.doubleValue } == [0, 600, 900, 1020, 1080, 1200, 1260])
        let laps = workout["events"]?.arrayValue?.filter { $0["type"] == "lap" }.map { $0["cause"]?.stringValue }
        // The cool-down's time is up as the ride ends: its step ends there too.
        #expect(laps == Array(repeating: "step", count: 7))
        let steps = workout["steps"]?.arrayValue ?? []
        #expect(steps.map { $0["index"]?.integerValue } == [0, 1, 2, 3, 2, 3, 5])
        let inTarget = steps.map { $0["timeInTarget"]?.doubleValue }
        #expect(inTarget[0] ?? 0 >= 570, "the warm-up's ramp follows the ride's: \(inTarget)")
        #expect((120...160).contains(inTarget[1] ?? 0), "225 W ± 5 % while the ramp passes 214 to 236 W: \(inTarget)")
        #expect(inTarget[2] == 0 && inTarget[3] == 0 && inTarget[5] == 0 && (80...110).contains(inTarget[4] ?? 0), "\(inTarget)")
        #expect(inTarget[6] == 0, "the ramp goes on up past the cool-down's 150 to 100 W")
        let text = workout["plan"]?["steps"]?.arrayValue?.map { $0["text"]?.stringValue ?? "" } ?? []
        #expect(text.prefix(4) == ["ramp 40% → 80% of FTP (100 → 200 W)", "90% of FTP (225 W)", "120% of FTP (300 W)", "50% of FTP (125 W)"])

        let shown = runCLI(["workouts", "show", "1", "--store", store])
        #expect(shown.output.contains("Plan         Ramp check: 7 of 7 steps"), "\(shown.output)")
        #expect(shown.output.contains("Steps of Ramp check") && shown.output.contains("     2    2      5:00      5:00    2:24   48 %"), "\(shown.output)")
    }

    @Test func aPlanTheProfileCannotRideIsRefusedWithWhatToDo() throws {
        let noFTP = runCLI(["replay", Self.rampRide, "--plan", Self.rampPlan])
        #expect(noFTP.status == .usage && noFTP.errors.contains("there is no FTP: give --ftp N"), "\(noFTP.errors)")
        let both = runCLI(["record", "--hr", "AA:BB:CC:DD:EE:FF", "--plan", Self.rampPlan, "--ftp", "250", "--activities", "cycling,running", "--no-save"])
        #expect(both.status == .usage && both.errors.contains("give --plan or --activities"), "\(both.errors)")
        let zones = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: zones) }
        try #"{"name": "Z", "steps": [{"duration": "5m", "power": "Z7"}]}"#.write(to: zones, atomically: true, encoding: .utf8)
        let seven = runCLI(["replay", Self.rampRide, "--plan", zones.path, "--ftp", "250"])
        #expect(seven.status == .usage && seven.errors.contains("step 1 asks for power zone 7, and the power zones go from 1 to 6"), "\(seven.errors)")
    }

    @Test func theREADMEExamplePrintsWhatTheREADMEShows() throws {
        let examples = try readmeExamples(under: "## Workout plans")
        #expect(examples.count == 2)
        for (command, shown) in examples {
            let words = command.split(separator: " ").dropFirst().map { word in
                word.hasPrefix("Captures/") ? ReplayCommandTests.captures.appendingPathComponent(String(word.dropFirst(9))).path : String(word)
            }
            let result = runCLI(words)
            #expect(result.status == .success, "\(command): \(result.errors)")
            let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let expected = shown.filter { !$0.isEmpty }
            if expected.contains("...") {
                // An excerpt: its lines in order, `...` standing for any lines between.
                var rest = lines[...]
                for line in expected where line != "..." {
                    guard let found = rest.firstIndex(of: line) else {
                        Issue.record("\(command): no line \(line) in order in:\n\(result.output)")
                        break
                    }
                    rest = rest[(found + 1)...]
                }
            } else {
                #expect(lines.filter { !$0.isEmpty } == expected, "\(result.output)")
            }
        }
    }

    /// A JSON plan with the FTP of the store's profile: the steps as ridden, with the watts.
    @Test func theJSONFormWithTheProfilesFTP() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("workouts.sqlite").path
        let plan = folder.appendingPathComponent("plan.json")
        try #"{"name": "Threshold", "steps": [{"repeat": 2, "steps": [{"duration": "8m", "power": "95-105%"}, {"duration": "open", "power": "50%"}]}]}"#
            .write(to: plan, atomically: true, encoding: .utf8)
        #expect(runCLI(["profile", "set", "--ftp", "300", "--store", store]).status == .success)
        let shown = runCLI(["plan", plan.path, "--json", "--store", store])
        #expect(shown.status == .success, "\(shown.errors)")
        let json = try JSONValue(parsing: shown.output)
        #expect(json["ftp"] == 300 && json["duration"] == .null && json["name"]?.stringValue == "Threshold")
        let steps = json["steps"]?.arrayValue ?? []
        #expect(steps.map { $0["index"]?.integerValue } == [0, 1, 0, 1] && steps.map { $0["round"]?.integerValue } == [1, 1, 2, 2])
        #expect(steps.first?["watts"] == .object(["low": 285, "high": 315]) && steps.first?["duration"] == 480)
        #expect(steps.last?["duration"] == .null && steps.last?["watts"] == .object(["low": 150, "high": 150]))
        let text = runCLI(["plan", plan.path, "--ftp", "200"])
        #expect(text.output.contains("95-105% of FTP (190-210 W)") && text.output.contains("open"), "\(text.output)")
    }

    @Test func whatIsWrongIsSaid() throws {
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString).zwo")
        defer { try? FileManager.default.removeItem(at: bad) }
        try "<workout_file><workout><SteadyState Duration=\"300\" Power=\"0.65\"/>".write(to: bad, atomically: true, encoding: .utf8)
        let cut = runCLI(["plan", bad.path])
        #expect(cut.status == .failure && cut.errors.contains("the file ends before </workout>: it was cut short"), "\(cut.errors)")
        #expect(runCLI(["plan"]).status == .usage)
        #expect(runCLI(["plan", "/nonexistent/plan.zwo"]).status == .usage)
        #expect(runCLI(["plan", bad.path, "--ftp", "9"]).status == .usage)
    }

    /// `serve --plan`: one file for every workout, or `ATHLETE=FILE,...` for athletes' own (those
    /// not named ride none); `record` and `replay` take the file as named.
    @Test func servesPlansArePerAthleteWhenNamed() throws {
        let anna = AthleteName(rawValue: "anna")!, ben = AthleteName(rawValue: "ben")!
        #expect(try WorkoutSetup.planPath("a.zwo", athlete: anna, command: "serve") == "a.zwo")
        #expect(try WorkoutSetup.planPath("anna=a.zwo,ben=b.json", athlete: ben, command: "serve") == "b.json")
        #expect(try WorkoutSetup.planPath("anna=a.zwo", athlete: ben, command: "serve") == nil)
        #expect(try WorkoutSetup.planPath("anna=a.zwo", athlete: nil, command: "serve") == nil)
        #expect(try WorkoutSetup.planPath("x=1.zwo", athlete: nil, command: "record") == "x=1.zwo")
        #expect(throws: UsageError.self) { try WorkoutSetup.planPath("anna=a.zwo,=b.zwo", athlete: anna, command: "serve") }
        // A file whose name holds '=' is that file.
        let odd = FileManager.default.temporaryDirectory.appendingPathComponent("a=b-\(UUID().uuidString).zwo")
        try "x".write(to: odd, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: odd) }
        #expect(try WorkoutSetup.planPath(odd.path, athlete: anna, command: "serve") == odd.path)
    }
}
