import Foundation
import SensorBridge
import SensorCore
import SensorTestSupport
import Testing
import Outputs
import Workouts
import WorkoutStore

/// `zones defaults --hr-model dfa --workout ID` and a workout's `statistics.dfaAlpha1` (DESIGN.md
/// §3 "DFA α1"): a synthetic ramp gives both thresholds and five zones; a ride that is no ramp, or
/// one without RR intervals, is refused saying what to ride.
@Suite struct DFAZonesCommandTests {
    /// A new store with the synthetic ramp (workout 1) and, with `alsoRide`, the bundled ride replayed (workout 2).
    static func store(alsoRide: Bool = false) throws -> (folder: URL, environment: [String: String]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-dfa-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("workouts.sqlite").path
        let store = try WorkoutStore(path: path)
        try store.save(SyntheticRamp.workout(startDate: Date(timeIntervalSince1970: 1_793_620_800)))
        let environment = ["SENSORBRIDGE_STORE": path, "TZ": "UTC"]
        if alsoRide {
            let ride = ReplayCommandTests.captures.appendingPathComponent("ride-60min-hr-power.jsonl").path
            #expect(runCLI(["replay", ride, "--save"], environment: environment).status == .success)
        }
        return (folder, environment)
    }

    @Test func aRampGivesBothThresholdsAndFiveZones() throws {
        let (folder, environment) = try Self.store()
        defer { try? FileManager.default.removeItem(at: folder) }
        let shown = runCLI(["workouts", "show", "1", "--json"], environment: environment)
        let dfa = try #require(try JSONValue(parsing: shown.output)["workout"]?["statistics"]?["dfaAlpha1"])
        let series = try #require(dfa["series"]?.arrayValue)
        #expect(dfa["windows"]?.integerValue == series.count)
        #expect(series.count > 200)
        let first = try #require(series.first?["alpha1"]?.doubleValue)
        let last = try #require(series.last?["alpha1"]?.doubleValue)
        #expect(first > 1.1, "\(first)")
        #expect(last < 0.5, "\(last)")
        let hrvt1 = try #require(dfa["thresholds"]?["hrvt1"]?["heartRate"]?.doubleValue)
        let hrvt2 = try #require(dfa["thresholds"]?["hrvt2"]?["heartRate"]?.doubleValue)
        let power1 = try #require(dfa["thresholds"]?["hrvt1"]?["power"]?.doubleValue)
        // The ramp climbs 100 to 190 bpm and 100 to 350 W over 25 minutes; α1 falls with it.
        #expect((120...175).contains(hrvt1) && hrvt1 < hrvt2 && hrvt2 <= 190, "\(hrvt1) \(hrvt2)")
        #expect((100...350).contains(power1), "\(power1)")
        #expect(series.allSatisfy { $0["heartRate"]?.doubleValue != nil && $0["power"]?.doubleValue != nil })

        let zones = runCLI(["zones", "defaults", "--hr-model", "dfa", "--workout", "1", "--json"], environment: environment)
        #expect(zones.status == .success, "\(zones.errors)")
        let object = try JSONValue(parsing: zones.output)
        let boundaries = try #require(object["heartRate"]?["zones"]?.arrayValue).compactMap { $0["maximum"]?.doubleValue }
        let (one, two) = (hrvt1.rounded(), hrvt2.rounded())
        #expect(boundaries == [(0.81 * two).rounded(), one, ((one + two) / 2).rounded(), two])
        #expect(object["dfaThresholds"]?["workout"]?.integerValue == 1)

        let table = runCLI(["zones", "defaults", "--hr-model", "dfa", "--workout", "latest", "--ftp", "250"], environment: environment)
        #expect(table.status == .success)
        #expect(table.output.hasPrefix("Heart-rate zones (DFA a1 of workout 1, count/min): HRVT1 \(Int(one)) (a1 0.75)"), "\(table.output)")
        #expect(table.output.contains("     2        \(Int((0.81 * two).rounded()))     \(Int(one))  up to HRVT1"), "\(table.output)")
        #expect(table.output.contains("Cycling-power zones (system, W): FTP 250"))

        let summary = runCLI(["workouts", "show", "1"], environment: environment)
        #expect(summary.output.contains("  DFA α1       "), "\(summary.output)")
        #expect(summary.output.contains("HRVT1 (0.75) \(Int(one)) bpm"), "\(summary.output)")
    }

    @Test func theBundledRideHasAFiniteAlpha1ButNoCrossingAndIsRefused() throws {
        let (folder, environment) = try Self.store(alsoRide: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let shown = runCLI(["workouts", "show", "2", "--json"], environment: environment)
        let dfa = try #require(try JSONValue(parsing: shown.output)["workout"]?["statistics"]?["dfaAlpha1"])
        let mean = try #require(dfa["mean"]?.doubleValue)
        #expect(mean.isFinite && mean > 0.4 && mean < 1.2, "\(mean)")
        #expect(dfa["refusedWindows"]?.integerValue == 0)
        #expect(dfa["thresholds"]?["hrvt1"]?["heartRate"] == .null)

        let refused = runCLI(["zones", "defaults", "--hr-model", "dfa", "--workout", "2"], environment: environment)
        #expect(refused.status == .failure)
        #expect(refused.output.isEmpty)
        #expect(refused.errors.hasPrefix("sensorbridge zones: DFA a1 of workout 2 did not fall through 0.75 and 0.5"), "\(refused.errors)")
        #expect(refused.errors.contains("ride a ramp"))
        #expect(refused.errors.contains("with a chest strap sending RR intervals"))
    }

    @Test(arguments: [
        (["--hr-model", "dfa"], "--hr-model dfa needs --workout ID"),
        (["--hr-model", "dfa", "--workout", "1", "--age", "40"], "leave out --age"),
        (["--workout", "1", "--age", "40", "--resting-hr", "50"], "--workout is for --hr-model dfa"),
        (["--hr-model", "dfa", "--workout", "x"], "'x' is not a workout id"),
    ])
    func usageErrorsSayWhatToGive(arguments: [String], message: String) throws {
        let (folder, environment) = try Self.store()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = runCLI(["zones", "defaults"] + arguments, environment: environment)
        #expect(result.status == .usage)
        #expect(result.errors.contains(message), "\(result.errors)")
    }

    /// Every `$ sensorbridge ...` example of the README's DFA α1 section, run in order against a new
    /// store, prints the lines the README shows after it, in order (`...` stands for lines left
    /// out): standard output, or standard error for a refusal.
    @Test func theREADMEExamplesPrintWhatTheREADMEShows() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-dfa-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["SENSORBRIDGE_STORE": folder.appendingPathComponent("workouts.sqlite").path, "TZ": "UTC"]
        let examples = try readmeExamples(under: "## DFA α1: heart-rate variability thresholds")
        #expect(examples.count == 4)
        for (command, shown) in examples {
            let words = command.split(separator: " ").dropFirst().map { word in
                word.hasPrefix("Captures/")
                    ? ReplayCommandTests.captures.appendingPathComponent(String(word.dropFirst(9))).path : String(word)
            }
            let result = runCLI(words, environment: environment)
            #expect(result.status == (command.contains("--workout 2") ? .failure : .success), "\(command): \(result.errors)")
            var printed = (result.status == .success ? result.output : result.errors).split(separator: "\n").map(String.init)[...]
            for line in shown where line.trimmingCharacters(in: .whitespaces) != "..." {
                guard let found = printed.firstIndex(of: line) else {
                    Issue.record("\(command) did not print, in order: \(line)")
                    break
                }
                printed = printed[(found + 1)...]
            }
        }
    }

    /// Every bundled trace's strap sends RR intervals: each gives a finite mean α1 over its windows,
    /// none refused (the ride's two artefacts, at its rate steps, are far below 5 % of a window).
    /// Their beats are white noise around stepped rates (α1 about 0.58 within a step, higher in
    /// windows that span a step), but the ramp's.
    @Test(arguments: [
        ("ride-60min-hr-power.jsonl", 0.70, 649), ("run-30min-hr.jsonl", 0.77, 336), ("multisport-bike-run.jsonl", 0.71, 192),
        ("ramp-25min-hr-power.jsonl", 0.72, 276),
    ])
    func theBundledCapturesGiveAFiniteAlpha1(capture: String, mean: Double, windows: Int) throws {
        let result = runCLI(["replay", ReplayCommandTests.captures.appendingPathComponent(capture).path, "--json"])
        #expect(result.status == .success)
        let dfa = try #require(try JSONValue(parsing: result.output)["workout"]?["statistics"]?["dfaAlpha1"])
        let measured = try #require(dfa["mean"]?.doubleValue)
        #expect(measured.isFinite && abs(measured - mean) < 0.005, "\(measured)")
        #expect(dfa["windows"]?.integerValue == windows)
        #expect(dfa["refusedWindows"]?.integerValue == 0)
    }
}
