import Foundation
import FoundationXML
@testable import SensorBridge
import SensorCore
import Testing
import Workouts
import WorkoutStore
import Zones
import Outputs

/// The commands over the workout store, run in-process against stores in temporary folders.
@Suite final class StoreCommandTests {
    let folder: URL
    let store: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = folder.appendingPathComponent("workouts.sqlite").path
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func capture(_ name: String) -> String { ReplayCommandTests.captures.appendingPathComponent(name).path }

    /// `sensorbridge ARGUMENTS --store STORE` in UTC, which must succeed.
    func run(_ arguments: [String]) -> (output: String, errors: String) {
        let run = runCLI(arguments + ["--store", store], environment: ["TZ": "UTC"])
        #expect(run.status == .success, "\(arguments): \(run.errors)")
        return (run.output, run.errors)
    }

    @Test func replaySaveStoresWhatWorkoutsShowPrints() throws {
        let replay = run(["replay", capture("run-30min-hr.jsonl"), "--json", "--save"] + ReplayCommandTests.profile)
        let replayed = try JSONValue(parsing: replay.output)
        #expect(replayed["id"] == 1)
        #expect(replayed["workout"]?["zoneGroups"]?["heartRate"] != nil)
        #expect(try JSONValue(parsing: run(["workouts", "show", "1", "--json"]).output) == replayed)
        #expect(try JSONValue(parsing: run(["workouts", "show", "latest", "--json"]).output) == replayed)
        let human = run(["replay", capture("run-30min-hr.jsonl"), "--save"])
        #expect(human.output.hasSuffix("Saved as workout 2 in \(store).\n"))
        #expect(human.errors.contains("saving workout 2 to \(store)"))
        let shown = run(["workouts", "show", "2"]).output
        #expect(shown.hasPrefix("Workout 2 ("))
        #expect(shown.contains(", recorded by bridge \(BridgeID.hostDefault))\nRunning workout, 2026-11-01 07:00 UTC, 30:00"))
        // Events are part of the same shape.
        let events = try JSONValue(parsing: run(["workouts", "show", "1", "--json", "--events"]).output)
        #expect(events["zoneUpdates"]?.arrayValue?.count == 6)
    }

    @Test func laterRecordingsUseTheStoredProfileAndPreferredZones() throws {
        func heartRateGroup(_ extra: [String]) throws -> JSONValue? {
            try JSONValue(parsing: run(["replay", capture("run-30min-hr.jsonl"), "--json"] + extra).output)["workout"]?[
                "zoneGroups"]?["heartRate"]
        }
        // Nothing stored yet: no zones, and a plain replay creates no store.
        #expect(try heartRateGroup([]) == nil)
        #expect(!FileManager.default.fileExists(atPath: store))
        _ = run(["profile", "set", "--age", "40", "--resting-hr", "50", "--ftp", "250"])
        let system = try heartRateGroup([])
        #expect(system?["configuration"]?["source"] == "system")
        #expect(ReplayCommandTests.durations(system) == [480, 300, 600, 300, 120])
        // A profile flag overrides its field only: resting 60 with the stored age 40 moves the zones.
        let overridden = try heartRateGroup(["--resting-hr", "60"])
        #expect(overridden?["configuration"]?["zones"]?.arrayValue?[1]["minimum"] == 132)  // 60 + 0.6 x 120
        _ = run(["zones", "set", "heart-rate", "130,155"])
        let preferred = try heartRateGroup([])
        #expect(preferred?["configuration"]?["source"] == "user")
        #expect(ReplayCommandTests.durations(preferred) == [480, 900, 420])
        #expect(try heartRateGroup(["--hr-zones", "150,160"])?["configuration"]?["source"] == "custom")
    }

    @Test func workoutsListFiltersAndPrintsJSON() throws {
        _ = run(["replay", capture("ride-60min-hr-power.jsonl"), "--save"])  // 1: 2026-11-02 17:30Z
        _ = run(["replay", capture("run-30min-hr.jsonl"), "--save"])  // 2: 2026-11-01 07:00Z
        _ = run(["replay", capture("multisport-bike-run.jsonl"), "--save"])  // 3: 2026-11-03 09:00Z, bike then run
        func ids(_ extra: [String]) throws -> [Int?] {
            let json = try JSONValue(parsing: run(["workouts", "list", "--json"] + extra).output)
            return json["workouts"]?.arrayValue?.map { $0["id"]?.integerValue } ?? []
        }
        #expect(try ids([]) == [2, 1, 3])  // by start
        #expect(try ids(["--activity", "running"]) == [2, 3])
        #expect(try ids(["--activity", "ride"]) == [1, 3])
        #expect(try ids(["--from", "2026-11-02"]) == [1, 3])
        #expect(try ids(["--from", "2026-11-02", "--to", "2026-11-02"]) == [1])
        #expect(try ids(["--to", "2026-11-01"]) == [2])
        #expect(try ids(["--from", "2026-11-04"]) == [])
        let listed = try JSONValue(parsing: run(["workouts", "list", "--json"]).output)["workouts"]?.arrayValue
        let ride = try #require(listed?.first { $0["id"] == 1 })
        #expect(ride["state"] == "finished" && ride["activityType"] == "cycling" && ride["duration"] == 3780)
        #expect(ride["start"] == "2026-11-02T17:30:00.000Z" && ride["activeDuration"] == 3600)
        let text = run(["workouts", "list"]).output
        #expect(text.contains("\n   1  2026-11-02 17:30 UTC  cycling      1:03:00   1:00:00"))
        #expect(runCLI(["workouts", "list", "--from", "2026-11-31", "--store", store]).status == .usage)
        #expect(runCLI(["workouts", "list", "--from", "2026-11-05", "--to", "2026-11-01", "--store", store]).status == .usage)
    }

    /// `--bridge-id` names the bridge a saved workout carries (the host name by default); the list
    /// shows it, the JSON gives it with the UUID, and the UUID names the workout wherever an id does.
    @Test func workoutsCarryTheirBridgeAndAreFoundByUUID() throws {
        _ = run(["replay", capture("run-30min-hr.jsonl"), "--save", "--bridge-id", "room-2"])
        _ = run(["replay", capture("run-30min-hr.jsonl"), "--save"])
        let listed = try #require(try JSONValue(parsing: run(["workouts", "list", "--json"]).output)["workouts"]?.arrayValue)
        #expect(listed.map { $0["bridge"] } == [.string("room-2"), .string(BridgeID.hostDefault.rawValue)])
        let uuid = try #require(listed[0]["uuid"]?.stringValue)
        #expect(uuid.count == 36 && uuid == uuid.lowercased() && uuid != listed[1]["uuid"]?.stringValue)
        let rows = run(["workouts", "list"]).output.split(separator: "\n")
        #expect(rows.first?.hasSuffix("NP  Bridge") == true)
        #expect(rows[1].hasSuffix("  room-2") && rows[2].hasSuffix("  \(BridgeID.hostDefault)"))

        let shown = try JSONValue(parsing: run(["workouts", "show", uuid.uppercased(), "--json"]).output)
        #expect(shown["id"] == 1 && shown["uuid"]?.stringValue == uuid && shown["bridge"] == "room-2")
        #expect(run(["workouts", "show", uuid]).output.hasPrefix("Workout 1 (\(uuid), recorded by bridge room-2)\n"))
        #expect(run(["export", uuid, "--format", "csv", "-o", "-"]).output.hasPrefix("time"))

        let unknown = UUID().uuidString.lowercased()
        let missing = runCLI(["workouts", "show", unknown, "--store", store])
        #expect(missing.status == .failure)
        #expect(missing.errors.contains("there is no workout \(unknown); 'sensorbridge workouts list --json' shows the UUIDs"))
        let bad = runCLI(["workouts", "show", "12ab", "--store", store])
        #expect(bad.status == .usage && bad.errors.contains("'12ab' is not a workout id"))
        let badBridge = runCLI(["replay", capture("run-30min-hr.jsonl"), "--save", "--bridge-id", "room.2", "--store", store])
        #expect(badBridge.status == .usage)
        #expect(badBridge.errors.contains("--bridge-id 'room.2': give 1 to 64 letters, digits, _ and - (it names the bridge"))
        #expect(run(["workouts", "delete", uuid, "--yes"]).output == "Deleted workout 1.\n")
    }

    @Test func workoutsDelete() throws {
        _ = run(["replay", capture("run-30min-hr.jsonl"), "--save"])
        #expect(run(["workouts", "delete", "1"]).output == "Deleted workout 1.\n")
        let again = runCLI(["workouts", "delete", "1", "--store", store])
        #expect(again.status == .failure)
        #expect(again.errors.contains("there is no workout 1"))
        #expect(runCLI(["workouts", "delete", "one", "--store", store]).status == .usage)
        #expect(run(["workouts", "list"]).output.hasPrefix("No workouts in"))
        let none = runCLI(["workouts", "show", "latest", "--store", store])
        #expect(none.status == .failure && none.errors.contains("no finished workouts"))
    }

    /// `workouts show` has the load and the lap table; `workouts load` adds up the loads by day
    /// with fitness, fatigue and form, as text, JSON and an SVG chart.
    @Test func workoutsShowLoadAndLapsAndTheDailyLoad() throws {
        _ = run(["profile", "set", "--age", "40", "--resting-hr", "50", "--ftp", "250"])
        for name in ["ride-60min-hr-power.jsonl", "run-30min-hr.jsonl", "multisport-bike-run.jsonl"] {
            _ = run(["replay", capture(name), "--save"])
        }
        // The ride: NP 211 W against FTP 250 for an active hour.
        let ride = try JSONValue(parsing: run(["workouts", "show", "1", "--json"]).output)["workout"]
        let load = try #require(ride?["load"])
        let np = try #require(load["normalizedPower"]?.doubleValue)
        let tss = try #require(load["trainingStressScore"]?.doubleValue)
        #expect(abs(tss - (np / 250) * (np / 250) * 100) < 1e-9)
        #expect(load["intensity"] == "hard" && load["heartRateStressScore"] == .null)
        // Laps: seven, each with its own figures and time in zone, adding up to the workout's.
        let laps = try #require(ride?["laps"]?.arrayValue)
        #expect(laps.count == 7)
        #expect(laps[1]["start"] == 600 && laps[1]["activeDuration"] == 600)
        #expect(laps[1]["statistics"]?["heartRate"]?["maximum"] == 137)
        func durations(_ groups: JSONValue?, _ type: String) -> [Double] {
            groups?[type]?["zoneDurations"]?.arrayValue?.compactMap { $0["duration"]?.doubleValue } ?? []
        }
        for type in ["heartRate", "cyclingPower"] {
            let total = durations(ride?["zoneGroups"], type)
            let sums = laps.map { durations($0["zoneGroups"], type) }.reduce(Array(repeating: 0.0, count: total.count)) {
                zip($0, $1).map { $0 + $1 }
            }
            #expect(total.count >= 5 && zip(sums, total).allSatisfy { abs($0 - $1) < 1e-6 }, "\(type): \(sums) \(total)")
        }
        let shown = run(["workouts", "show", "1"]).output
        #expect(shown.contains("  Load         TSS 71  IF 0.84 (FTP 250 W)  TRIMP 198  hard\n"))
        #expect(shown.contains("Laps\n  Lap    Start    Active   Elapsed  Avg HR  Max HR  Avg W   NP W\n"))
        // Lap 2 holds the 2-minute pause: 10 minutes active, 12 elapsed.
        #expect(shown.contains("    2    10:00     10:00     12:00     135     137    165    165\n"))
        #expect(shown.contains("Power zones by lap\n  Lap       Z1       Z2"))

        // By day: the run (no FTP use, no threshold heart rate) has no load; the ride and the
        // bike-and-run have their TSS.
        let json = try JSONValue(parsing: run(["workouts", "load", "--from", "2026-11-01", "--to", "2026-11-04", "--json"]).output)
        let days = try #require(json["days"]?.arrayValue)
        #expect(days.map { $0["day"]?.stringValue } == ["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04"])
        #expect(days.map { $0["workouts"]?.integerValue } == [1, 1, 1, 0])
        #expect(days.map { $0["workoutsWithoutLoad"]?.integerValue } == [1, 0, 0, 0])
        let bikeRun = try JSONValue(parsing: run(["workouts", "show", "3", "--json"]).output)["workout"]?["load"]
        let loads: [Double] = [0, tss, try #require(bikeRun?["trainingStressScore"]?.doubleValue), 0]
        var (fitness, fatigue) = (0.0, 0.0)
        for (day, load) in zip(days, loads) {
            #expect(abs((day["load"]?.doubleValue ?? -1) - load) < 1e-9)
            #expect(abs((day["form"]?.doubleValue ?? -1) - (fitness - fatigue)) < 1e-9)
            fitness += (load - fitness) / 42
            fatigue += (load - fatigue) / 7
            #expect(abs((day["fitness"]?.doubleValue ?? -1) - fitness) < 1e-9)
            #expect(abs((day["fatigue"]?.doubleValue ?? -1) - fatigue) < 1e-9)
        }
        #expect(json["workouts"]?.arrayValue?.map { $0["id"]?.integerValue } == [2, 1, 3])
        // Days shown from --from; the load before it still counts.
        let later = try JSONValue(parsing: run(["workouts", "load", "--from", "2026-11-03", "--to", "2026-11-03", "--json"]).output)
        #expect(abs((later["days"]?.arrayValue?.first?["form"]?.doubleValue ?? 0) - (days[2]["form"]?.doubleValue ?? 1)) < 1e-12)
        #expect(later["workouts"]?.arrayValue?.count == 1)

        let text = run(["workouts", "load", "--from", "2026-11-01", "--to", "2026-11-02"]).output
        #expect(text.contains("Day          Workouts   Load  Fitness  Fatigue   Form\n2026-11-01          1      0      0.0      0.0    0.0\n"))
        #expect(text.contains("1 workout has no load"))

        // The chart: an SVG file, refused when it exists unless --force.
        let svg = folder.appendingPathComponent("load.svg").path
        _ = run(["workouts", "load", "--from", "2026-11-01", "--to", "2026-11-04", "--svg", svg])
        let picture = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(XMLParser(data: Data(picture.utf8)).parse())
        #expect(picture.contains("id=\"load-2026-11-02\"") && !picture.contains("id=\"load-2026-11-01\""))
        #expect(picture.contains("id=\"line-fitness\"") && picture.contains("Training load, 2026-11-01 to 2026-11-04"))
        let again = runCLI(["workouts", "load", "--svg", svg, "--store", store])
        #expect(again.status == .failure && again.errors.contains("--force"))
        _ = run(["workouts", "load", "--svg", svg, "--force"])
        #expect(runCLI(["workouts", "load", "--force", "--store", store]).status == .usage)
        #expect(runCLI(["workouts", "load", "--from", "2026-13-01", "--store", store]).status == .usage)
        // With a lactate-threshold heart rate, a workout without power has its hrTSS as its load.
        _ = run(["profile", "set", "--lthr", "165"])
        _ = run(["replay", capture("run-30min-hr.jsonl"), "--save"])
        let run = try JSONValue(parsing: run(["workouts", "show", "4", "--json"]).output)["workout"]?["load"]
        let hrTSS = try #require(run?["heartRateStressScore"]?.doubleValue)
        #expect(hrTSS > 20 && hrTSS < 60 && run?["trainingStressScore"] == .null)
        // The same run saved before the LTHR was set borrows it (issue 32): the day has both.
        let day = try JSONValue(parsing: self.run(["workouts", "load", "--from", "2026-11-01", "--to", "2026-11-01", "--json"]).output)
        #expect(day["days"]?.arrayValue?.first?["load"]?.doubleValue == 2 * hrTSS)
    }

    /// Issue 32: the bundled bike+run's load is its activities' (the bike's TSS, the run's hrTSS),
    /// `workouts load` adds that sum, and `--activity` counts only the activities of that type.
    @Test func aMultisportWorkoutsLoadAndActivityTotalsAreItsActivities() throws {
        _ = run(["profile", "set", "--age", "40", "--resting-hr", "50", "--ftp", "250", "--lthr", "165"])
        _ = run(["replay", capture("ride-60min-hr-power.jsonl"), "--save"])  // 1: cycling, 2026-11-02
        _ = run(["replay", capture("multisport-bike-run.jsonl"), "--save"])  // 2: bike then run, 2026-11-03
        let workout = try #require(try JSONValue(parsing: run(["workouts", "show", "2", "--json"]).output)["workout"])
        let activities = try #require(workout["activities"]?.arrayValue)
        let bike = try #require(activities.first?["load"]), runPart = try #require(activities.last?["load"])
        // The bike: its own NP over its 10 minutes; the run: no power, its hrTSS.
        let np = try #require(activities.first?["statistics"]?["cyclingPower"]?["normalized"]?.doubleValue)
        #expect(abs((bike["trainingStressScore"]?.doubleValue ?? 0) - 600.0 / 3600 * (np / 250) * (np / 250) * 100) < 1e-9)
        #expect(bike["intensityFactor"]?.doubleValue.map { abs($0 - np / 250) < 1e-12 } == true)
        #expect(runPart["trainingStressScore"] == .null && runPart["intensityFactor"] == .null)
        let runLoad = try #require(runPart["heartRateStressScore"]?.doubleValue)
        #expect(activities.last?["activeDuration"] == 480)
        let total = try #require(workout["load"]?["trainingStressScore"]?.doubleValue)
        let bikeTSS = try #require(bike["trainingStressScore"]?.doubleValue)
        #expect(abs(total - (bikeTSS + runLoad)) < 1e-9)
        #expect(workout["load"]?["stressScore"]?.doubleValue == total && workout["load"]?["intensityFactor"] == .null)
        #expect(self.run(["workouts", "show", "2"]).output.contains(
            "  Load         TSS \(Int(total.rounded())) (cycling TSS \(Int(bikeTSS.rounded())) IF \(String(format: "%.2f", np / 250)), "
                + "running hrTSS \(Int(runLoad.rounded())); FTP 250 W)"))

        // workouts load: the day of the bike+run adds the sum; --activity running its run alone.
        let days = try JSONValue(parsing: self.run(["workouts", "load", "--from", "2026-11-03", "--to", "2026-11-03", "--json"]).output)
        #expect(days["days"]?.arrayValue?.first?["load"]?.doubleValue == total)
        let running = try JSONValue(
            parsing: self.run(["workouts", "load", "--from", "2026-11-01", "--to", "2026-11-03", "--activity", "running", "--json"]).output)
        #expect(running["workouts"]?.arrayValue?.map { $0["id"]?.integerValue } == [2])
        #expect(running["workouts"]?.arrayValue?.first?["load"]?["stressScore"]?.doubleValue == runLoad)
        #expect(running["days"]?.arrayValue?.last?["load"]?.doubleValue == runLoad)

        // workouts zones --activity: the run's 8 minutes, not the bike's; the bike's with the ride.
        func periods(_ quantity: String, _ activity: String) throws -> [JSONValue] {
            try JSONValue(
                parsing: self.run(["workouts", "zones", "--quantity", quantity, "--by", "week", "--activity", activity, "--json"]).output
            )["periods"]?.arrayValue ?? []
        }
        let runHR = try periods("heart-rate", "running")
        #expect(runHR.count == 1 && runHR.first?["workouts"] == 1)
        #expect(ReplayCommandTests.durations(runHR.first) == ReplayCommandTests.durations(activities.last?["zoneGroups"]?["heartRate"]))
        #expect(runHR.first?["totalDuration"] == 480)
        #expect(try periods("power", "running").isEmpty)
        let ride = try #require(try JSONValue(parsing: self.run(["workouts", "show", "1", "--json"]).output)["workout"])
        let cycling = try periods("heart-rate", "cycling")
        #expect(cycling.first?["workouts"] == 2)
        let expected = zip(
            ReplayCommandTests.durations(ride["zoneGroups"]?["heartRate"]),
            ReplayCommandTests.durations(activities.first?["zoneGroups"]?["heartRate"])
        ).map { $0 + $1 }
        #expect(zip(ReplayCommandTests.durations(cycling.first), expected).allSatisfy { abs($0 - $1) < 1e-6 })
    }

    /// `workouts list --activity TYPE` lists a multisport workout with the figures of its
    /// activities of that type: the run's duration, active time, heart rate and power, not the
    /// whole workout's.
    @Test func listingByActivityGivesThatActivitysFigures() throws {
        _ = run(["replay", capture("multisport-bike-run.jsonl"), "--save"] + ReplayCommandTests.profile)
        let workout = try #require(try JSONValue(parsing: run(["workouts", "show", "1", "--json"]).output)["workout"])
        let activities = try #require(workout["activities"]?.arrayValue)
        func listed(_ extra: [String]) throws -> JSONValue? {
            try JSONValue(parsing: run(["workouts", "list", "--json"] + extra).output)["workouts"]?.arrayValue?.first
        }
        let whole = try #require(try listed([]))
        #expect(whole["duration"] == workout["duration"] && whole["activeDuration"] == workout["activeDuration"])
        #expect(whole["figuresOf"] == nil)
        for (activity, type) in zip(activities, ["cycling", "running"]) {
            let part = try #require(try listed(["--activity", type]))
            let start = try #require(activity["start"]?.stringValue.flatMap(ISO8601.parse))
            let end = try #require(activity["end"]?.stringValue.flatMap(ISO8601.parse))
            #expect(part["activityType"] == "multisport" && part["figuresOf"] == .string(type))
            #expect(part["start"] == whole["start"])
            #expect(part["duration"]?.doubleValue.map { abs($0 - (end - start)) < 1e-6 } == true, "\(part)")
            #expect(part["activeDuration"] == activity["activeDuration"], "\(part)")
            let statistics = activity["statistics"]
            #expect(part["averageHeartRate"] == statistics?["heartRate"]?["average"], "\(part)")
            #expect(part["averagePower"] == statistics?["cyclingPower"]?["average"] ?? .null, "\(part)")
            #expect(part["normalizedPower"] == statistics?["cyclingPower"]?["normalized"] ?? .null, "\(part)")
        }
        #expect(activities.last?["activeDuration"] == 480)
        let text = run(["workouts", "list", "--activity", "running"]).output
        #expect(text.contains("\n   1  2026-11-03 09:00 UTC  multisport      8:00      8:00"), "\(text)")
        #expect(text.hasSuffix("\nA multisport workout's figures are those of its running alone.\n"), "\(text)")
    }

    /// A workout recorded before the threshold its load needs was set gets its load once the
    /// profile has it, marked as set later, with nothing written to the workout.
    @Test func aThresholdSetLaterGivesAnEarlierWorkoutItsLoad() throws {
        _ = run(["profile", "set", "--age", "40", "--resting-hr", "50"])
        _ = run(["replay", capture("run-30min-hr.jsonl"), "--save"])  // 1: 2026-11-01, no LTHR
        _ = run(["replay", capture("ride-60min-hr-power.jsonl"), "--save"])  // 2: 2026-11-02, no FTP
        func loads() throws -> [JSONValue] {
            try JSONValue(parsing: run(["workouts", "load", "--from", "2026-11-01", "--to", "2026-11-02", "--json"]).output)[
                "workouts"]?.arrayValue ?? []
        }
        #expect(try loads().map { $0["load"]?["stressScore"] } == [.null, .null])
        _ = run(["profile", "set", "--lthr", "165", "--ftp", "250"])
        let later = try loads()
        let jog = try #require(later.first?["load"]), ride = try #require(later.last?["load"])
        let hrTSS = try #require(jog["heartRateStressScore"]?.doubleValue)
        #expect(hrTSS > 20 && jog["stressScore"]?.doubleValue == hrTSS)
        #expect(jog["thresholdsSetLater"] == .object(["lactateThresholdHeartRate": 165]))
        let np = try #require(ride["normalizedPower"]?.doubleValue)
        #expect(abs((ride["trainingStressScore"]?.doubleValue ?? 0) - (np / 250) * (np / 250) * 100) < 1e-9)
        #expect(ride["functionalThresholdPower"] == 250)
        #expect(ride["thresholdsSetLater"] == .object(["functionalThresholdPower": 250, "lactateThresholdHeartRate": 165]))
        // show gives the same load, and says so; the workout keeps the profile it was recorded with.
        let shown = try JSONValue(parsing: run(["workouts", "show", "1", "--json"]).output)["workout"]
        for key in ["heartRateStressScore", "trimp", "stressScore", "thresholdsSetLater"] { #expect(shown?["load"]?[key] == jog[key], "\(key)") }
        #expect(shown?["profile"]?["lactateThresholdHeartRate"] == .null)
        #expect(run(["workouts", "show", "1"]).output.contains("  Load         hrTSS \(Int(hrTSS.rounded())) (LTHR 165 set later)  TRIMP "))
        #expect(run(["workouts", "show", "2"]).output.contains("  Load         TSS 71  IF 0.84 (FTP 250 W set later)  hrTSS "))
        // A workout recorded with a threshold keeps its own.
        _ = run(["profile", "set", "--ftp", "300"])
        _ = run(["replay", capture("ride-60min-hr-power.jsonl"), "--save", "--ftp", "250"])  // 3
        let own = try JSONValue(parsing: run(["workouts", "show", "3", "--json"]).output)["workout"]?["load"]
        #expect(own?["functionalThresholdPower"] == 250 && own?["thresholdsSetLater"] == .null)
    }

    /// The README's examples in `heading`'s section, run in order as written (without the
    /// optional `[...]` parts and the `# comments`) against this test's store: each succeeds, and
    /// each line shown under it is printed, in order (`...` stands for lines left out; the
    /// README's store path for this one).
    func runREADMEExamples(under heading: String, count: Int) throws {
        let examples = try readmeExamples(under: heading).map { example in
            (example.command, example.shown.filter { $0 != "..." && !$0.isEmpty }.map {
                $0.replacingOccurrences(of: "/home/me/.local/share/sensorbridge/workouts.sqlite", with: store)
            })
        }
        #expect(examples.count == count)
        for (command, shown) in examples {
            let plain = command.replacingOccurrences(of: " +#.*$", with: "", options: .regularExpression)
                .replacingOccurrences(of: " \\[[^]]*\\]", with: "", options: .regularExpression)
            let words = plain.split(separator: " ").dropFirst().map(String.init)
            let result = runCLI(
                words.map { $0.hasPrefix("Captures/") ? capture(String($0.dropFirst(9))) : $0 },
                environment: ["SENSORBRIDGE_STORE": store, "TZ": "UTC"])
            #expect(result.status == .success, "\(plain): \(result.errors)")
            var printed = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)[...]
            for line in shown {
                guard let found = printed.firstIndex(of: line) else {
                    Issue.record("\(plain) did not print, in order: \(line)")
                    break
                }
                printed = printed[(found + 1)...]
            }
        }
    }

    @Test func theREADMETrainingExamplesPrintWhatTheREADMEShows() throws {
        try runREADMEExamples(under: "## Training load, laps and target zones", count: 3)
    }

    @Test func theREADMEBestEffortsExamplesPrintWhatTheREADMEShows() throws {
        try runREADMEExamples(under: "## Best efforts and suggested thresholds", count: 5)
    }

    @Test func theREADMEAthleteExamplesPrintWhatTheREADMEShows() throws {
        try runREADMEExamples(under: "## More than one rider or box", count: 9)
    }

    @Test func theREADMEStoreExamplesPrintWhatTheREADMEShows() throws {
        try runREADMEExamples(under: "## The workout store", count: 10)
    }

    /// Target zones: the share of active time in them in the summary, the stored workout (JSON)
    /// and the TCX export; targets outside the zones or without zones are refused.
    @Test func targetZonesAreSummarisedStoredAndExported() throws {
        let ride = capture("ride-60min-hr-power.jsonl")
        let targets = ["--target-hr-zone", "2-3", "--target-power-zone", "3"] + ReplayCommandTests.profile
        let summary = run(["replay", ride, "--save"] + targets).output
        #expect(summary.contains("  Target       heart-rate zones 2-3: 60 % of active time (36:00)\n"))
        #expect(summary.contains("  Target       power zone 3: 13 % of active time (8:00)\n"))
        let stored = try JSONValue(parsing: run(["workouts", "show", "1", "--json"]).output)["workout"]?["targets"]
        #expect(stored?.arrayValue?.count == 2)
        #expect(stored?.arrayValue?.first?["quantityType"] == "heartRate" && stored?.arrayValue?.first?["lowestZoneIndex"] == 1)
        #expect(stored?.arrayValue?.first?["timeInTarget"] == 2160 && stored?.arrayValue?.first?["share"] == 0.6)
        let tcx = run(["export", "1", "--format", "tcx", "-o", "-"]).output
        #expect(tcx.contains("<Notes>Sensors: hr, power; Target heart-rate zones 2-3: 60 % of active time; Target power zone 3: 13 % of active time</Notes>"))
        // Refused, with the reason.
        let outside = runCLI(["replay", ride, "--target-hr-zone", "6"] + ReplayCommandTests.profile + ["--store", store])
        #expect(outside.status == .usage && outside.errors.contains("the zones go from 1 to 5"))
        let backwards = runCLI(["replay", ride, "--target-power-zone", "4-2", "--store", store])
        #expect(backwards.status == .usage && backwards.errors.contains("a range of zones such as 2-3"))
        let noZones = runCLI(["replay", ride, "--target-hr-zone", "2", "--store", folder.appendingPathComponent("none.sqlite").path])
        #expect(noZones.status == .usage && noZones.errors.contains("--target-hr-zone needs heart-rate zones"))
        #expect(runCLI(["replay", ride, "--target-debounce", "0", "--store", store]).status == .usage)
    }

    @Test func workoutsZonesRebucketsEveryWorkoutIntoOneConfiguration() throws {
        _ = run(["replay", capture("ride-60min-hr-power.jsonl"), "--save", "--hr-zones", "120,150"])  // 3 custom zones
        _ = run(["replay", capture("run-30min-hr.jsonl"), "--save"] + ReplayCommandTests.profile)  // 5 system zones
        let stored = try WorkoutStore(path: store)
        let workouts = try [1, 2].map { try stored.workout(WorkoutID(Int64($0))) }
        func rebucketed(into configuration: WorkoutZoneConfiguration) throws -> [Double] {
            try workouts.map { w in
                WorkoutZoneGroup(
                    rebucketing: w.samples, into: configuration,
                    timeline: try WorkoutTimeline(start: w.start, end: w.end, pauses: w.pauses)
                ).durations
            }.reduce(Array(repeating: Duration.zero, count: configuration.zones.count)) { zip($0, $1).map(+) }.map(\.seconds)
        }

        // Both workouts are in November; the run (Sunday November 1) in ISO week 44, the ride
        // (Monday November 2) in week 45.
        let custom = try JSONValue(
            parsing: run(["workouts", "zones", "--quantity", "heart-rate", "--by", "month", "--zones", "130,140,160", "--json"]).output)
        let period = try #require(custom["periods"]?.arrayValue?.first)
        #expect(custom["periods"]?.arrayValue?.count == 1)
        #expect(period["period"] == "2026-11" && period["start"] == "2026-11-01" && period["workouts"] == 2)
        let configuration = try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [130, 140, 160])
        #expect(ReplayCommandTests.durations(period) == (try rebucketed(into: configuration)))
        #expect(custom["configuration"]?["source"] == "custom")
        let weeks = try JSONValue(
            parsing: run(["workouts", "zones", "--quantity", "heart-rate", "--by", "week", "--zones", "130,140,160", "--json"]).output)
        #expect(weeks["periods"]?.arrayValue?.map { [$0["period"], $0["start"], $0["workouts"]] } == [
            ["2026-W44", "2026-10-26", 1], ["2026-W45", "2026-11-02", 1],
        ])
        // By day: a period per day with a workout, named by its date, the same time in zone in all.
        let byDay = try JSONValue(
            parsing: run(["workouts", "zones", "--quantity", "heart-rate", "--by", "day", "--zones", "130,140,160", "--json"]).output)
        let dayPeriods = byDay["periods"]?.arrayValue ?? []
        #expect(byDay["by"] == "day" && dayPeriods.count == 2)
        #expect(dayPeriods.allSatisfy { $0["period"] == $0["start"] && $0["workouts"] == 1 })
        #expect(dayPeriods.last?["period"] == "2026-11-02")
        #expect(dayPeriods.map { ReplayCommandTests.durations($0) } == weeks["periods"]?.arrayValue?.map { ReplayCommandTests.durations($0) })
        let dayText = run(["workouts", "zones", "--quantity", "heart-rate", "--by", "day", "--zones", "130,140,160"]).output
        #expect(dayText.contains("\nDay         Workouts") && dayText.contains("\n2026-11-02         1 "), "\(dayText)")

        // --normalize 7 redraws the zones in effect (here the system ones: 128, 141, 154, 167).
        _ = run(["profile", "set", "--age", "40", "--resting-hr", "50"])
        let normalized = try JSONValue(
            parsing: run(["workouts", "zones", "--quantity", "heart-rate", "--by", "month", "--normalize", "7", "--json"]).output)
        let bounds = normalized["configuration"]?["zones"]?.arrayValue?.compactMap { $0["maximum"]?.doubleValue }
        #expect(bounds == [128, 135.8, 143.6, 151.4, 159.2, 167])
        #expect(normalized["periods"]?.arrayValue?.first?["period"] == "2026-11")
        let seven = try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: bounds ?? [])
        #expect(ReplayCommandTests.durations(normalized["periods"]?.arrayValue?.first) == (try rebucketed(into: seven)))
        let text = run(["workouts", "zones", "--quantity", "heart-rate", "--by", "week", "--normalize", "7"]).output
        #expect(text.hasPrefix("Heart-rate time in zone by week, 7 zones (custom, bpm): Z1 <128, Z2 128-135.8,"))
        #expect(text.contains("\n2026-W44         1 ") && text.contains("\n2026-W45         1 "))

        // Power: only the ride has a power meter.
        let power = try JSONValue(
            parsing: run(["workouts", "zones", "--quantity", "power", "--by", "week", "--zones", "150,250", "--json"]).output)
        #expect(power["periods"]?.arrayValue?.first?["workouts"] == 1)

        for wrong in [
            ["--by", "week"], ["--quantity", "cadence", "--by", "week"], ["--quantity", "power", "--by", "year"],
            ["--quantity", "power", "--by", "week", "--zones", "100,200", "--normalize", "5"],
            ["--quantity", "power", "--by", "week", "--normalize", "12"],
        ] {
            #expect(runCLI(["workouts", "zones"] + wrong + ["--store", store]).status == .usage, "\(wrong)")
        }
        // No power zones anywhere: say how to get some.
        let none = runCLI(["workouts", "zones", "--quantity", "power", "--by", "week", "--store", store])
        #expect(none.status == .usage && none.errors.contains("sensorbridge profile set --ftp 250"))
    }

    @Test func profileSetShowAndReset() throws {
        let set = run(["profile", "set", "--age", "40", "--resting-hr", "50", "--max-hr", "185", "--ftp", "250"]).output
        #expect(set.contains("Maximum HR      185 bpm (measured)"))
        _ = run(["profile", "set", "--ftp", "265", "--power-model", "7"])
        let json = try JSONValue(parsing: run(["profile", "show", "--json"]).output)
        #expect(
            json == .object([
                "birthDate": nil, "age": 40, "restingHeartRate": 50, "maximumHeartRate": 185,
                "functionalThresholdPower": 265, "powerZoneModel": "7", "lactateThresholdHeartRate": nil,
                "sex": nil, "weight": nil, "heartRateZoneModel": "reserve",
            ]))
        _ = run(["profile", "set", "--birth-date", "1986-02-28"])
        let born = try JSONValue(parsing: run(["profile", "show", "--json"]).output)
        #expect(born["birthDate"] == "1986-02-28" && born["age"] == .null)
        #expect(runCLI(["profile", "set", "--resting-hr", "190", "--store", store]).status == .usage)  // above the maximum
        #expect(runCLI(["profile", "set", "--store", store]).status == .usage)
        #expect(runCLI(["profile", "set", "--power-model", "5", "--store", store]).status == .usage)
        _ = run(["profile", "reset"])
        #expect(try JSONValue(parsing: run(["profile", "show", "--json"]).output)["functionalThresholdPower"] == .null)
    }

    /// `profile set --lthr --hr-model`, as `--power-model`: kept, shown, used by `zones show` and
    /// by later recordings, which keep the model; refused when the model lacks its value.
    @Test func profileTakesTheThresholdAndTheHeartRateModel() throws {
        let refused = runCLI(["profile", "set", "--hr-model", "lthr", "--store", store])
        #expect(refused.status == .usage)
        #expect(refused.errors.contains("the %LTHR model needs your lactate-threshold heart rate: add --lthr BPM, as in 'sensorbridge profile set --lthr 165'"))
        _ = run(["profile", "set", "--age", "40", "--resting-hr", "50"])
        let set = run(["profile", "set", "--lthr", "165", "--hr-model", "lthr"]).output
        #expect(set.contains("  Threshold HR    165 bpm (LTHR)\n"))
        #expect(set.contains("  HR zones        lthr: % of lactate-threshold heart rate (Friel), 7 zones\n"))
        let json = try JSONValue(parsing: run(["profile", "show", "--json"]).output)
        #expect(json["lactateThresholdHeartRate"] == 165 && json["heartRateZoneModel"] == "lthr")
        let zones = try JSONValue(parsing: run(["zones", "show", "--json"]).output)
        #expect(zones["heartRate"]?["zones"]?.arrayValue?.compactMap { $0["maximum"]?.integerValue } == [134, 149, 155, 165, 170, 175])
        #expect(runCLI(["profile", "set", "--lthr", "251", "--store", store]).errors.contains("--lthr 251 is out of range"))

        // A recording keeps the model and the threshold; a later change of the profile changes neither.
        _ = run(["replay", capture("ride-60min-hr-power.jsonl"), "--save"])
        _ = run(["profile", "set", "--hr-model", "max"])
        let shown = try JSONValue(parsing: run(["workouts", "show", "latest", "--json"]).output)
        #expect(shown["workout"]?["profile"]?["heartRateZoneModel"] == "lthr")
        #expect(shown["workout"]?["profile"]?["lactateThresholdHeartRate"] == 165)
        #expect(shown["workout"]?["zoneGroups"]?["heartRate"]?["configuration"]?["zones"]?.arrayValue?.count == 7)
        #expect(try JSONValue(parsing: run(["profile", "show", "--json"]).output)["heartRateZoneModel"] == "max")

        // Reset goes back to heart-rate reserve.
        _ = run(["profile", "reset"])
        #expect(try JSONValue(parsing: run(["profile", "show", "--json"]).output)["heartRateZoneModel"] == "reserve")
        // A stored %LTHR model without the threshold: no heart-rate zones, and what to do.
        try WorkoutStore(path: store).savePreferences(ZonePreferences(heartRateZoneModel: .lactateThreshold))
        #expect(run(["zones", "show"]).output.contains(
            "Heart rate zones: none; the %LTHR model needs your lactate-threshold heart rate: sensorbridge profile set --lthr 165"))
    }

    /// Zones a person could not have are refused with the reason, by `zones set`, `--hr-zones`,
    /// `--power-zones` and `workouts zones --zones`, and nothing is stored.
    @Test func implausibleZonesAreRefused() throws {
        for (words, message) in [
            (["zones", "set", "heart-rate", "1,2"], "zones set heart-rate 1,2: boundary 1 is 1 bpm, which no heart-rate zone starts at; give heart-rate boundaries from 30 to 250 bpm"),
            (["zones", "set", "heart-rate", "0.5,100000"], "boundary 1 is 0.5 bpm"),
            (["zones", "set", "heart-rate", "120,120.5,150"], "boundary 2 (120.5) is less than 1 bpm above boundary 1 (120)"),
            (["zones", "set", "power", "150,3001"], "boundary 2 is 3001 W, above the 3000 W"),
            (["zones", "set", "power", "0.5,100000"], "boundary 2 is 100000 W"),
            (["replay", capture("ride-60min-hr-power.jsonl"), "--hr-zones", "1,2"], "--hr-zones 1,2: boundary 1 is 1 bpm"),
            (["replay", capture("ride-60min-hr-power.jsonl"), "--power-zones", "100,100.5"], "--power-zones 100,100.5: boundary 2 (100.5) is less than 1 W above"),
            (["workouts", "zones", "--quantity", "heart-rate", "--by", "week", "--zones", "20,140"], "--zones 20,140: boundary 1 is 20 bpm"),
        ] {
            let result = runCLI(words + ["--store", store])
            #expect(result.status == .usage, "\(words)")
            #expect(result.errors.contains(message), "\(words): \(result.errors)")
        }
        _ = run(["zones", "set", "heart-rate", "30,250"])  // the ends of the range are zones a person can have
        #expect(try JSONValue(parsing: run(["zones", "show", "--json"]).output)["cyclingPower"] == .null)
    }

    @Test func zonesSetShowAndReset() throws {
        _ = run(["profile", "set", "--ftp", "250"])
        let set = run(["zones", "set", "heart-rate", "120,140,155,170"]).output
        #expect(
            set == """
                Heart rate zones (user)
                  Zone 1  < 120 bpm
                  Zone 2  120-140 bpm
                  Zone 3  140-155 bpm
                  Zone 4  155-170 bpm
                  Zone 5  >= 170 bpm

                """)
        let shown = try JSONValue(parsing: run(["zones", "show", "--json"]).output)
        #expect(shown["heartRate"]?["source"] == "user")
        #expect(shown["cyclingPower"]?["source"] == "system")
        _ = run(["zones", "set", "power", "150,200,250"])
        _ = run(["zones", "reset", "heart-rate"])
        let reset = try JSONValue(parsing: run(["zones", "show", "--json"]).output)
        #expect(reset["heartRate"] == .null)  // no age or resting heart rate: no system zones
        #expect(reset["cyclingPower"]?["source"] == "user")
        #expect(run(["zones", "reset"]).output.contains("Power zones (system)"))
        #expect(run(["zones", "show"]).output.contains("Heart rate zones: none"))
        for wrong in [["set", "heart-rate", "150,140"], ["set", "cadence", "80,90"], ["set", "heart-rate"], ["reset", "speed"], ["sideways"]] {
            #expect(runCLI(["zones"] + wrong + ["--store", store]).status == .usage, "\(wrong)")
        }
    }

    @Test func theStoreIsFoundByFlagThenEnvironmentThenXDGThenHome() throws {
        let base = folder.path
        func saved(_ arguments: [String], _ environment: [String: String]) -> Bool {
            runCLI(["replay", capture("run-30min-hr.jsonl"), "--save"] + arguments, environment: environment).status == .success
        }
        #expect(saved([], ["HOME": base + "/home"]))
        #expect(FileManager.default.fileExists(atPath: base + "/home/.local/share/sensorbridge/workouts.sqlite"))
        #expect(saved([], ["HOME": base + "/home", "XDG_DATA_HOME": base + "/data"]))
        #expect(FileManager.default.fileExists(atPath: base + "/data/sensorbridge/workouts.sqlite"))
        #expect(saved([], ["XDG_DATA_HOME": base + "/data", "SENSORBRIDGE_STORE": base + "/env.sqlite"]))
        #expect(saved(["--store", base + "/flag.sqlite"], ["SENSORBRIDGE_STORE": base + "/env.sqlite"]))
        for path in ["/home/.local/share/sensorbridge/workouts.sqlite", "/data/sensorbridge/workouts.sqlite", "/env.sqlite", "/flag.sqlite"] {
            #expect(try WorkoutStore(path: base + path).workouts().count == 1, "\(path)")
        }
        let nowhere = runCLI(["workouts", "list"])
        #expect(nowhere.status == .usage && nowhere.errors.contains("give --store PATH or set SENSORBRIDGE_STORE"))
    }

    @Test func storesThatCannotBeUsedFailWithStatus1AndAreLeftUnchanged() throws {
        let notes = folder.appendingPathComponent("notes.txt").path
        try Data("not a database\n".utf8).write(to: URL(fileURLWithPath: notes))
        let notADatabase = runCLI(["workouts", "list", "--store", notes])
        #expect(notADatabase.status == .failure)
        #expect(notADatabase.errors.hasPrefix("sensorbridge workouts: \(notes) is not a SQLite database"))
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "not a database\n")
        let replay = runCLI(["replay", capture("run-30min-hr.jsonl"), "--save", "--store", notes])
        #expect(replay.status == .failure && replay.output.isEmpty)

        // A store a newer build wrote: its schema version (the header's user_version, a big-endian
        // uint32 at byte 60) is beyond this build's.
        let newer = folder.appendingPathComponent("newer.sqlite").path
        #expect(runCLI(["profile", "set", "--ftp", "250", "--store", newer]).status == .success)
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: newer))
        try file.seek(toOffset: 60)
        try file.write(contentsOf: [0, 0, 0, 99])
        try file.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: newer))
        let refused = runCLI(["profile", "show", "--store", newer])
        #expect(refused.status == .failure)
        #expect(refused.errors.contains("has schema version 99, but this sensorbridge knows versions up to \(WorkoutStore.schemaVersion)"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: newer)) == before)
    }

    @Test func everyCommandHasHelp() {
        for command in [
            ["workouts", "--help"], ["workouts", "list", "--help"], ["workouts", "show", "--help"],
            ["workouts", "delete", "--help"], ["workouts", "zones", "--help"], ["workouts", "recover", "--help"],
            ["profile", "--help"], ["profile", "set", "--help"], ["zones", "--help"], ["zones", "set", "--help"],
        ] {
            let run = runCLI(command)
            #expect(run.status == .success && run.output.contains("Usage: sensorbridge \(command[0])"), "\(command)")
            #expect(run.output.contains("Example"), "\(command)")
        }
        #expect(runCLI(["workouts"]).status == .usage)
        #expect(runCLI(["workouts", "sideways"]).status == .usage)
    }

    /// `--version`, `help COMMAND` (as `COMMAND --help`, for every command), and "did you mean" for
    /// a typo, but not for a word that is nothing like a command.
    @Test func versionHelpAndDidYouMean() {
        let version = runCLI(["--version"])
        #expect(version.status == .success && version.output == "sensorbridge 0.6.0\n")
        #expect(runCLI(["version"]).output == version.output)
        for command in SensorBridgeCLI.subcommandNames {
            let help = runCLI(["help", command])
            #expect(help.status == .success, "\(command)")
            #expect(help.output == runCLI([command, "--help"]).output, "\(command)")
            #expect(help.output.contains("sensorbridge \(command)"), "\(command)")
            #expect(!help.output.contains("\\("), "\(command): an interpolation printed literally")
        }
        for (words, message) in [
            (["recrod"], "unknown command 'recrod' (did you mean 'record'?)"),
            (["exprot", "1"], "unknown command 'exprot' (did you mean 'export'?)"),
            (["help", "srve"], "unknown command 'srve' (did you mean 'serve'?)"),
            (["workouts", "lsit"], "unknown subcommand 'lsit' for 'workouts' (did you mean 'list'?)"),
            (["zones", "shwo"], "unknown zones command 'shwo' (did you mean 'show'?)"),
        ] {
            let run = runCLI(words)
            #expect(run.status == .usage, "\(words)")
            #expect(run.errors.contains(message), "\(words): \(run.errors)")
        }
        let nothingLike = runCLI(["xyzzy"])
        #expect(nothingLike.status == .usage && !nothingLike.errors.contains("did you mean"), "\(nothingLike.errors)")
        #expect(Suggestion.distance(Array("recrod"), Array("record")) == 1)
        #expect(Suggestion.distance(Array("web"), Array("pair")) == 4)
    }
}
