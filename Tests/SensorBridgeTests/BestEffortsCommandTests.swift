import Foundation
@testable import SensorBridge
import SensorCore
import Testing
import Workouts
import WorkoutStore

/// `workouts best` and `profile suggest` (issue 33, item 3) on the bundled ride, in-process.
@Suite final class BestEffortsCommandTests {
    let folder: URL
    let store: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-best-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = folder.appendingPathComponent("workouts.sqlite").path
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func run(_ arguments: [String]) -> (status: SensorBridge.ExitStatus, output: String, errors: String) {
        runCLI(arguments + ["--store", store], environment: ["TZ": "UTC"])
    }

    func replay(_ name: String, _ flags: [String] = []) {
        let result = run(["replay", ReplayCommandTests.captures.appendingPathComponent(name).path, "--save"] + flags)
        #expect(result.status == .success, "\(result.errors)")
    }

    /// The bundled ride's mean-maximal power, against a hand computation: the power held (3 s) at
    /// each second of the ride out of its two pauses, every stretch of the duration tried.
    @Test func theBundledRidesBestPowerIsEveryStretchTried() throws {
        replay("ride-60min-hr-power.jsonl")
        let result = run(["workouts", "best", "--json"])
        #expect(result.status == .success, "\(result.errors)")
        let power = try #require(try JSONValue(parsing: result.output)["periods"]?.arrayValue?.first?["power"]?.arrayValue)
        let workout = try WorkoutStore(path: store).workout(WorkoutID(1))
        #expect(workout.pauses.count == 2)
        let samples = workout.samples.filter { $0.type == .cyclingPower }
        var held: [Double] = []
        var next = 0
        var latest: Sample?
        for second in 0..<Int((workout.duration / .seconds(1)).rounded(.up)) {
            let time = workout.start + .seconds(second)
            guard time < workout.end else { break }
            while next < samples.count, samples[next].time <= time {
                latest = samples[next]
                next += 1
            }
            let paused = workout.pauses.contains { $0.contains(time) }
            if let latest, !paused, time < latest.time + .seconds(3) { held.append(latest.value) }
        }
        for seconds in [1, 5, 60, 300, 1200] {
            let best = (0...(held.count - seconds)).map { held[$0..<($0 + seconds)].reduce(0, +) / Double(seconds) }.max()!
            let stored = try #require(power.first { $0["seconds"] == .number(Double(seconds)) }?["value"]?.doubleValue)
            #expect(abs(stored - best) < 1e-9, "\(seconds) s: \(stored) against \(best)")
        }
        #expect(power.first { $0["seconds"] == 1200 }?["workout"] == 1)
    }

    @Test func byMonthGivesAColumnPerMonthAndDrawsACurve() throws {
        replay("ride-60min-hr-power.jsonl")
        replay("multisport-bike-run.jsonl")
        let svg = folder.appendingPathComponent("curve.svg").path
        let result = run(["workouts", "best", "--by", "month", "--svg", svg])
        #expect(result.status == .success, "\(result.errors)")
        #expect(result.output.hasPrefix("Best power (W) by period\n      Time  2026-11\n"))
        let picture = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(picture.contains("id=\"curve-0\"") && picture.contains("2026-11: 253 W for 1200 s"))
        // The picture is not replaced unasked.
        let again = run(["workouts", "best", "--svg", svg])
        #expect(again.status != .success && again.errors.contains("--force"))
        let day = run(["workouts", "best", "--by", "day"])
        #expect(day.status == .usage && day.errors.contains("--by takes week or month, not 'day'"))
    }

    @Test func anEmptyStoreHasNoEfforts() throws {
        replay("ride-60min-hr-power.jsonl")
        let result = run(["workouts", "best", "--from", "2030-01-01"])
        #expect(result.output == "No finished workouts match.\n")
    }

    /// A suggestion is printed, not applied, until --apply; it raises the FTP and maximum heart
    /// rate and lowers the resting heart rate only.
    @Test func profileSuggestProposesThenApplies() throws {
        _ = run(["profile", "set", "--age", "60", "--resting-hr", "130", "--ftp", "300"])
        replay("ride-60min-hr-power.jsonl")
        let proposed = run(["profile", "suggest", "--from", "2026-11-01", "--json"])
        #expect(proposed.status == .success, "\(proposed.errors)")
        let json = try JSONValue(parsing: proposed.output)
        let fields = json["changes"]?.arrayValue?.compactMap { $0["field"]?.stringValue }
        // The FTP of 300 is above 95 % of 253 W: kept. 208 - 0.7 x 60 = 166 is below the 174 held for 5 s.
        #expect(fields == ["maximumHeartRate", "restingHeartRate"])
        let changes = json["changes"]?.arrayValue ?? []
        #expect(changes.first?["proposed"] == 174 && json["applied"] == false)
        #expect(try JSONValue(parsing: run(["profile", "show", "--json"]).output)["restingHeartRate"] == 130)

        let applied = run(["profile", "suggest", "--from", "2026-11-01", "--apply"])
        #expect(applied.output.hasSuffix("Taken into your profile; the system zones follow it.\n"), "\(applied.output)")
        let profile = try JSONValue(parsing: run(["profile", "show", "--json"]).output)
        #expect(profile["maximumHeartRate"] == 174 && profile["functionalThresholdPower"] == 300)
        #expect(profile["restingHeartRate"] == changes.last?["proposed"])
        let again = run(["profile", "suggest", "--from", "2026-11-01"])
        #expect(again.output.hasPrefix("Nothing to suggest from 1 workout since 2026-11-01"))
    }

    /// Without a 20 min effort, the FTP is the critical power fitted to the 3 to 15 min bests:
    /// efforts of exactly CP + W′ / t give CP and W′ back.
    @Test func criticalPowerFitGivesBackAKnownModel() throws {
        replay("multisport-bike-run.jsonl")
        let result = run(["profile", "suggest", "--from", "2026-11-01", "--json"])
        let ftp = try JSONValue(parsing: result.output)["changes"]?.arrayValue?.first { $0["field"] == "functionalThresholdPower" }
        #expect(ftp?["reason"]?.stringValue?.hasPrefix("critical power fitted to your best 3 min, ") == true, "\(result.output)")
    }
}
