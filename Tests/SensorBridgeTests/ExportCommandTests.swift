import Foundation
import SensorBridge
import SensorCore
import Testing
import WorkoutStore
import Outputs

/// `sensorbridge export`, in-process, against a store with the bundled ride saved into it.
@Suite final class ExportCommandTests {
    let folder: URL
    let store: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = folder.appendingPathComponent("workouts.sqlite").path
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    func run(_ arguments: [String]) -> (status: SensorBridge.ExitStatus, output: String, errors: String) {
        runCLI(arguments + ["--store", store], environment: ["TZ": "UTC"])
    }

    /// Saves the bundled one-hour ride (workout 1) with the profile stored for it.
    func saveRide(_ capture: String = "ride-60min-hr-power.jsonl") {
        _ = run(["profile", "set"] + ReplayCommandTests.profile)
        let replay = run(["replay", ReplayCommandTests.captures.appendingPathComponent(capture).path, "--save"])
        #expect(replay.status == .success, "\(replay.errors)")
    }

    @Test func eachTextFormatIsWrittenAndTheCSVRowsAgreeWithTheStoredTimeInZone() throws {
        saveRide()
        for format in ["tcx", "csv", "svg"] {
            let run = run(["export", "1", "--format", format, "-o", path("ride.\(format)"), "--json"])
            #expect(run.status == .success, "\(run.errors)")
            let size = try #require(FileManager.default.attributesOfItem(atPath: path("ride.\(format)"))[.size] as? Int)
            let json = try JSONValue(parsing: run.output)
            let files = try #require(json["files"]?.arrayValue)
            #expect(files.count == 1)
            #expect(files.first?["path"]?.stringValue == path("ride.\(format)"))
            #expect(files.first?["bytes"]?.integerValue == size)
            #expect(files.first?["id"] == 1)
        }
        let tcx = try String(contentsOfFile: path("ride.tcx"), encoding: .utf8)
        #expect(tcx.contains("<Activity Sport=\"Biking\">\n   <Id>2026-11-02T17:30:00Z</Id>"))
        #expect(tcx.components(separatedBy: "<Lap StartTime=").count == 8)  // 7 laps
        #expect(try String(contentsOfFile: path("ride.svg"), encoding: .utf8).contains("<path id=\"line-cyclingPower\""))

        // The CSV: a row per second of the 1:03:00, zones that add up to `workouts show`'s durations.
        let rows = try String(contentsOfFile: path("ride.csv"), encoding: .utf8).components(separatedBy: "\r\n")
            .dropFirst().dropLast().map { $0.components(separatedBy: ",") }
        #expect(rows.count == 3780)
        let shown = try JSONValue(parsing: run(["workouts", "show", "1", "--json"]).output)
        for (type, column) in [("heartRate", 6), ("cyclingPower", 7)] {
            let durations = shown["workout"]?["zoneGroups"]?[type]?["zoneDurations"]?.arrayValue ?? []
            #expect(!durations.isEmpty)
            for entry in durations {
                let label = String((entry["index"]?.integerValue ?? -1) + 1)
                let seconds = try #require(entry["duration"]?.doubleValue)
                let count = rows.count { $0[column] == label }
                let runs = rows.indices.count { rows[$0][column] == label && ($0 == 0 || rows[$0 - 1][column] != label) }
                #expect(abs(Double(count) - seconds) <= Double(max(runs, 1)), "\(type) zone \(label): \(count) rows, \(seconds) s")
            }
        }
    }

    @Test func latestToStandardOutputAndTheDefaultFileName() throws {
        saveRide()
        let piped = run(["export", "latest", "--format", "csv", "-o", "-"])
        #expect(piped.status == .success && piped.errors.isEmpty)
        #expect(piped.output.hasPrefix("time,elapsed_s,heart_rate_bpm,power_w,cadence_rpm,speed_mps,heart_rate_zone,power_zone\r\n"))
        // -o naming a folder: the file gets the workout's name; the format comes from --format.
        let named = run(["export", "latest", "--format", "csv", "-o", folder.path])
        #expect(named.status == .success)
        let file = path("2026-11-02-1730-workout-1.csv")
        #expect(named.output == "Wrote workout 1 to \(file) (\(piped.output.utf8.count) bytes).\n")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == piped.output)
        // The format from the file's extension.
        #expect(run(["export", "1", "-o", path("x.svg")]).status == .success)
        #expect(try String(contentsOfFile: path("x.svg"), encoding: .utf8).contains("<svg "))
    }

    @Test func mistakesSayWhatToDo() throws {
        saveRide()
        let unknown = run(["export", "7", "--format", "tcx", "-o", path("x.tcx")])
        #expect(unknown.status == .failure)
        #expect(unknown.errors.contains("there is no workout 7; 'sensorbridge workouts list' shows the ids"))
        #expect(!FileManager.default.fileExists(atPath: path("x.tcx")))
        let format = run(["export", "1", "--format", "gpx"])
        #expect(format.status == .usage)
        #expect(format.errors.contains("unknown format 'gpx'; give one of fit, tcx, csv, svg"))
        #expect(run(["export", "1"]).errors.contains("give the format: --format and one of fit, tcx, csv, svg"))
        let unwritable = run(["export", "1", "--format", "csv", "-o", path("missing/folder/x.csv")])
        #expect(unwritable.status == .failure)
        #expect(unwritable.errors.contains("cannot write \(path("missing/folder/x.csv")): there is no folder \(path("missing/folder"))"))
        #expect(run(["export", "1", "2", "--format", "csv", "-o", "-"]).status == .usage)
        #expect(run(["export", "--format", "csv"]).errors.contains("give the workout"))
        let noStore = runCLI(["export", "latest", "--format", "csv", "--store", path("none.sqlite")])
        #expect(noStore.status == .failure && noStore.errors.contains("no workout store yet"))
        #expect(run(["export", "--help"]).output.contains("Examples:"))
    }

    @Test func allIntoAFolderWithProgressOnlyOnATerminal() throws {
        saveRide()
        saveRide("run-30min-hr.jsonl")
        let target = path("exports/all")
        let quiet = run(["export", "--all", "--format", "svg", "-o", target, "--json"])
        #expect(quiet.status == .success && quiet.errors.isEmpty, "\(quiet.errors)")
        let files = try #require(try JSONValue(parsing: quiet.output)["files"]?.arrayValue)
        // By start: the run (2026-11-01) before the ride (2026-11-02).
        #expect(files.map { $0["path"]?.stringValue } == [
            "\(target)/2026-11-01-0700-workout-2.svg", "\(target)/2026-11-02-1730-workout-1.svg",
        ])
        #expect(try FileManager.default.contentsOfDirectory(atPath: target).sorted() == [
            "2026-11-01-0700-workout-2.svg", "2026-11-02-1730-workout-1.svg",
        ])
        let context = CommandContext(
            input: LineReader(text: ""), output: TextOutput(), errors: TextOutput(), environment: ["TZ": "UTC"],
            errorsAreTerminal: true)
        #expect(SensorBridgeCLI.run(["export", "1", "2", "--format", "tcx", "-o", target, "--store", store], context: context) == .success)
        #expect(context.errors.text == "exported 1 of 2: workout 1\nexported 2 of 2: workout 2\n")
        #expect(context.output.text.components(separatedBy: "\n").count == 3)
    }

    /// A file that exists stops the export before anything is written, unless --force: with one
    /// workout (-o FILE) and with several (-o DIR), where the files that do not exist are not
    /// written either.
    @Test func anExistingFileIsRefusedUnlessForce() throws {
        saveRide()
        saveRide("run-30min-hr.jsonl")
        let old = Array("keep me\n".utf8)
        try Data(old).write(to: URL(fileURLWithPath: path("ride.tcx")))
        let refused = run(["export", "1", "--format", "tcx", "-o", path("ride.tcx")])
        #expect(refused.status == .failure)
        #expect(refused.errors == "sensorbridge export: \(path("ride.tcx")) exists; nothing was written. Give --force to replace it, or -o another name\n")
        #expect(FileManager.default.contents(atPath: path("ride.tcx")).map(Array.init) == old)
        let forced = run(["export", "1", "--format", "tcx", "-o", path("ride.tcx"), "--force"])
        #expect(forced.status == .success, "\(forced.errors)")
        #expect(try String(contentsOfFile: path("ride.tcx"), encoding: .utf8).contains("<TrainingCenterDatabase"))

        // Several into a folder: one of the two is there, so neither is written.
        let folder = path("fit")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let taken = folder + "/2026-11-02-1730-workout-1.fit"
        try Data(old).write(to: URL(fileURLWithPath: taken))
        let both = run(["export", "--all", "--format", "fit", "-o", folder])
        #expect(both.status == .failure)
        #expect(both.errors.contains("1 of the 2 files exist (\(taken)); nothing was written. Give --force to replace them, or -o another folder"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["2026-11-02-1730-workout-1.fit"])
        #expect(FileManager.default.contents(atPath: taken).map(Array.init) == old)
        #expect(run(["export", "--all", "--format", "fit", "-o", folder, "--force"]).status == .success)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 2)
        #expect(FileManager.default.contents(atPath: taken).map(Array.init) != old)
        // Standard output is never refused.
        #expect(run(["export", "1", "--format", "csv", "-o", "-"]).status == .success)
    }

    /// `workouts show --json` prints the profile the workout was recorded with, after the stored
    /// one changed; a workout saved without one shows null.
    @Test func workoutsShowPrintsTheRecordedProfile() throws {
        saveRide()
        #expect(run(["profile", "set", "--ftp", "300", "--power-model", "7"]).status == .success)
        let shown = try JSONValue(parsing: run(["workouts", "show", "1", "--json"]).output)
        #expect(shown["workout"]?["profile"] == .object([
            "birthDate": .null, "age": 40, "restingHeartRate": 50, "maximumHeartRate": .null,
            "functionalThresholdPower": 250, "powerZoneModel": "6", "lactateThresholdHeartRate": .null,
            "sex": .null, "weight": .null, "heartRateZoneModel": "reserve",
        ]))
        let workouts = try WorkoutStore(path: store)
        var workout = try workouts.workout(WorkoutID(1))
        workout.profile = nil
        let id = try workouts.save(workout)
        let none = try JSONValue(parsing: run(["workouts", "show", "\(id)", "--json"]).output)
        #expect(none["workout"]?["profile"] == .null)
    }
}
