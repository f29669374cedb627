import Foundation
import SensorCore
import Testing

@testable import SensorBridge
@testable import Web
import Outputs

/// One ride, one story (issue 32): one stored workout, multisport, with laps, a pause and a value
/// no rider produces, rendered through every output; each gives the figures of the stored workout
/// as `workouts show --json` has them (the reference), to the output's own precision.
@Suite struct OneRideTests {
    static let captures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Captures").standardized

    /// The bundled bike+run with a lap at 5:00 and 13:20, a pause from 6:40 to 7:10 and one
    /// power value of 4000 W at 3:20; saved with an FTP and an LTHR in the store's profile.
    static func storedRide(in folder: URL) throws -> String {
        let lines = try String(contentsOf: captures.appendingPathComponent("multisport-bike-run.jsonl"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        var events: [(t: Double, line: String)] = [
            (300, #"{"t":300,"event":"lap"}"#), (400, #"{"t":400,"event":"pause"}"#),
            (430, #"{"t":430,"event":"resume"}"#), (800, #"{"t":800,"event":"lap"}"#),
        ]
        var ride = [lines[0]]
        var spiked = false
        for line in lines.dropFirst() {
            let object = try JSONValue(parsing: line)
            let t = object["t"]?.doubleValue ?? 0
            while let next = events.first, next.t < t || (next.t == t && object["event"] == nil) {
                ride.append(next.line)
                events.removeFirst()
            }
            if !spiked, t >= 200, object["device"] == "power", let hex = object["hex"]?.stringValue {
                // Instantaneous power 4000 W (0x0fa0, little-endian), the rest of the payload as it was.
                let bytes = Array(hex)
                ride.append(line.replacingOccurrences(of: hex, with: String(bytes[0..<4]) + "a00f" + String(bytes[8...])))
                spiked = true
                continue
            }
            ride.append(line)
        }
        let trace = folder.appendingPathComponent("ride.jsonl")
        try (ride.joined(separator: "\n") + "\n").write(to: trace, atomically: true, encoding: .utf8)
        let store = folder.appendingPathComponent("workouts.sqlite").path
        for arguments in [
            ["profile", "set", "--ftp", "250", "--lthr", "165", "--age", "40", "--resting-hr", "50"],
            ["replay", trace.path, "--save"],
        ] {
            let run = Self.cli(arguments + ["--store", store])
            #expect(run.status == .success, "\(arguments): \(run.errors)")
        }
        return store
    }

    static func cli(_ arguments: [String]) -> (status: SensorBridge.ExitStatus, output: [UInt8], errors: String) {
        let context = CommandContext(
            input: LineReader(text: ""), output: TextOutput(), errors: TextOutput(), environment: ["TZ": "UTC"])
        let status = SensorBridgeCLI.run(arguments, context: context)
        return (status, context.output.bytes, context.errors.text)
    }

    static func text(_ arguments: [String], _ store: String) -> String {
        String(decoding: cli(arguments + ["--store", store]).output, as: UTF8.self)
    }

    /// `m:ss` or `h:mm:ss` to seconds.
    static func seconds(_ clock: some StringProtocol) -> Double {
        clock.split(separator: ":").reduce(0) { $0 * 60 + (Double($1) ?? .nan) }
    }

    /// The reference: what `workouts show --json` says of each lap and activity.
    struct Span {
        var active: Double
        var heartRate: Double?
        var maximumHeartRate: Double?
        var power: Double?
        var normalizedPower: Double?
        /// kJ.
        var energy: Double?
        var zones: [String: [Double]]
        var stressScore: Double?

        init(_ json: JSONValue) {
            active = json["activeDuration"]?.doubleValue ?? .nan
            let statistics = json["statistics"] ?? .null
            heartRate = statistics["heartRate"]?["average"]?.doubleValue
            maximumHeartRate = statistics["heartRate"]?["maximum"]?.doubleValue
            power = statistics["cyclingPower"]?["average"]?.doubleValue
            normalizedPower = statistics["cyclingPower"]?["normalized"]?.doubleValue
            energy = statistics["cyclingPower"]?["energy"]?.doubleValue
            zones = [:]
            for (type, group) in json["zoneGroups"]?.objectValue?.pairs ?? [] {
                zones[type] = (group["zoneDurations"]?.arrayValue ?? []).compactMap { $0["duration"]?.doubleValue }
            }
            stressScore = json["load"]?["stressScore"]?.doubleValue
        }
    }

    @Test(.timeLimit(.minutes(5))) func oneWorkoutGivesTheSameFiguresInEveryOutput() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("one-ride-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Self.storedRide(in: folder)

        // The reference.
        let shown = try JSONValue(parsing: Self.text(["workouts", "show", "1", "--json"], store))
        let w = try #require(shown["workout"])
        let laps = (w["laps"]?.arrayValue ?? []).map(Span.init)
        let activities = (w["activities"]?.arrayValue ?? []).map(Span.init)
        let whole = Span(w)
        // What the ride is: laps at 5:00 and 13:20 and one where the run begins at 10:00; a 30 s pause.
        #expect(laps.map(\.active) == [300, 270, 200, 280])
        #expect(activities.map(\.active) == [570, 480])
        #expect(whole.active == 1050 && w["duration"] == 1080)
        // The spike counts nowhere; the workout's load is its activities'.
        #expect(try #require(whole.normalizedPower) < 240 && w["statistics"]?["cyclingPower"]?["maximum"] == 258)
        let activityLoads = activities.compactMap(\.stressScore)
        #expect(activityLoads.count == 2)
        #expect(abs(try #require(whole.stressScore) - activityLoads.reduce(0, +)) < 1e-9)
        // Laps and activities add up to the workout: time, zones and work.
        for (type, total) in whole.zones {
            for spans in [laps, activities] {
                let sum = spans.map { $0.zones[type] ?? [] }.reduce(into: [Double](repeating: 0, count: total.count)) { sums, row in
                    for (index, value) in row.enumerated() where index < sums.count { sums[index] += value }
                }
                #expect(zip(sum, total).allSatisfy { abs($0 - $1) < 1e-6 }, "\(type): \(sum) against \(total)")
            }
        }
        #expect(abs(laps.compactMap(\.energy).reduce(0, +) - (whole.energy ?? .nan)) < 1e-6)
        // A lap has zones of what it holds, as its activity does: the run's laps no power zones.
        #expect(laps.map { $0.zones.keys.sorted() } == [
            ["cyclingPower", "heartRate"], ["cyclingPower", "heartRate"], ["heartRate"], ["heartRate"],
        ])
        #expect(activities.map { $0.zones.keys.sorted() } == [["cyclingPower", "heartRate"], ["heartRate"]])

        // The summary text.
        let summary = Self.text(["workouts", "show", "1"], store)
        #expect(summary.contains("18:00 (active 17:30)"), "\(summary)")
        #expect(summary.contains("Laps \(laps.count), pauses 1"))
        #expect(summary.contains("TSS \(Int(whole.stressScore!.rounded()))"))
        #expect(summary.contains("NP \(Int(whole.normalizedPower!.rounded())) W"))
        let lapRows = summary.split(separator: "\n").compactMap { line -> [Substring]? in
            let fields = line.split(separator: " ")
            return fields.count >= 5 && Int(fields[0]) != nil && fields[1].contains(":") && fields[2].contains(":") ? fields : nil
        }.prefix(laps.count)
        #expect(lapRows.map { Self.seconds($0[2]) } == laps.map(\.active), "\(lapRows)")
        // Active time, then elapsed time (pauses included), then the average heart rate.
        #expect(zip(lapRows, laps).allSatisfy { row, lap in Self.seconds(row[3]) >= lap.active.rounded() }, "\(lapRows)")
        #expect(lapRows.map { Double($0[4]) } == laps.map { $0.heartRate?.rounded() })

        // FIT, read by Garmin's own SDK.
        if FITCheck.unavailableReason == nil {
            let fit = try FITCheck.decode(Self.cli(["export", "1", "--format", "fit", "-o", "-", "--store", store]).output)
            let fitLaps = fit["laps"]?.arrayValue ?? []
            let sessions = fit["sessions"]?.arrayValue ?? []
            #expect(fitLaps.map { $0["total_timer_time"]?.doubleValue } == laps.map(\.active))
            #expect(fitLaps.map { $0["avg_heart_rate"]?.doubleValue } == laps.map { $0.heartRate?.rounded() })
            #expect(fitLaps.map { $0["normalized_power"]?.doubleValue } == laps.map { $0.normalizedPower?.rounded() })
            #expect(fitLaps.map { $0["total_work"]?.doubleValue } == laps.map { $0.energy.map { ($0 * 1000).rounded() } })
            #expect(sessions.map { $0["total_timer_time"]?.doubleValue } == activities.map(\.active))
            #expect(sessions.map { $0["training_stress_score"]?.doubleValue } == activities.map { $0.stressScore.map { ($0 * 10).rounded() / 10 } })
            #expect(fit["activity"]?["total_timer_time"]?.doubleValue == whole.active)
            let lapZones = (fit["timeInZone"]?.arrayValue ?? []).filter { $0["reference_mesg"] == "lap" }
            #expect(lapZones.map { $0["time_in_hr_zone"]?.arrayValue?.compactMap(\.doubleValue) } == laps.map { $0.zones["heartRate"] })
        }

        // TCX: a lap's TotalTimeSeconds is its active time, its heart rate the lap's.
        let tcx = Self.text(["export", "1", "--format", "tcx", "-o", "-"], store)
        #expect(tcx.matches(of: /<TotalTimeSeconds>([0-9.]+)<\/TotalTimeSeconds>/).map { Double($0.1) } == laps.map(\.active))
        #expect(tcx.matches(of: /<AverageHeartRateBpm>\s*<Value>([0-9]+)<\/Value>/).map { Double($0.1) } == laps.map { $0.heartRate?.rounded() })
        #expect(tcx.matches(of: /<Calories>([0-9]+)<\/Calories>/).map { Double($0.1) } == laps.map { ($0.energy ?? 0).rounded() })

        // CSV: one row a second, zones only while active; a zone's rows are its time to the second.
        let csv = Self.text(["export", "1", "--format", "csv", "-o", "-"], store)
        let rows = csv.split(whereSeparator: \.isNewline).dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.count == 1080)
        for (column, type) in [(6, "heartRate"), (7, "cyclingPower")] {
            let total = try #require(whole.zones[type])
            for zone in total.indices {
                let count = Double(rows.filter { $0.count > column && $0[column] == "\(zone + 1)" }.count)
                #expect(abs(count - total[zone]) <= 1, "\(type) zone \(zone + 1): \(count) rows for \(total[zone]) s")
            }
        }

        // SVG: a marker at each lap after the first.
        let svg = Self.text(["export", "1", "--format", "svg", "-o", "-"], store)
        #expect(svg.matches(of: /id="lap-([0-9]+)-heartRate"/).map { Int($0.1) } == (2...laps.count).map { $0 })

        // The web page renders the same JSON: active time, each lap's.
        let page = WebPages.workout(shown, chart: "", viewer: .init(csrfToken: nil, canChange: false, nonce: "n"), live: false)
        #expect(page.contains(WebPages.clock(whole.active)))
        for lap in laps { #expect(page.contains("<td>\(WebPages.clock(lap.active))</td>"), "\(lap.active)") }
    }
}
