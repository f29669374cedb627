import Captures
import Foundation
import SensorBridge
import Session
import SensorCore
import Testing
import Workouts
import Zones
import Outputs

/// Replays each bundled capture and checks the summary against numbers worked out here from
/// the capture's schedule (scripts/make-captures.py) and from the file's own bytes.
@Suite struct ReplayCommandTests {
    static let captures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Captures").standardized
    static let profile = ["--age", "40", "--resting-hr", "50", "--ftp", "250"]

    static func replay(_ name: String, _ extra: [String] = []) throws -> JSONValue {
        let run = runCLI(["replay", captures.appendingPathComponent(name).path, "--json"] + profile + extra)
        #expect(run.status == .success, "\(run.errors)")
        return try JSONValue(parsing: run.output)
    }

    static func durations(_ group: JSONValue?) -> [Double] {
        group?["zoneDurations"]?.arrayValue?.compactMap { $0["duration"]?.doubleValue } ?? []
    }

    /// The notifications of a capture: (t, device, payload bytes).
    static func notifications(_ name: String) throws -> [(t: Double, device: String, bytes: [UInt8])] {
        let text = try String(contentsOf: captures.appendingPathComponent(name), encoding: .utf8)
        return try text.split(separator: "\n").dropFirst().compactMap { line in
            let object = try JSONValue(parsing: String(line))
            guard let hex = object["hex"]?.stringValue else { return nil }
            return (object["t"]!.doubleValue!, object["device"]!.stringValue!, try Hex.decode(hex))
        }
    }

    /// Heart rates (uint8 values: the captures' flags never set bit 0) and RR intervals in seconds.
    static func heartData(_ name: String) throws -> (rates: [(t: Double, bpm: Double)], rr: [Double]) {
        var rates: [(Double, Double)] = []
        var rr: [Double] = []
        for n in try notifications(name) where n.device == "hr" {
            let flags = n.bytes[0]
            rates.append((n.t, Double(n.bytes[1])))
            var offset = 2 + (flags & 0x08 != 0 ? 2 : 0)
            while flags & 0x10 != 0, offset + 1 < n.bytes.count {
                rr.append(Double(UInt16(n.bytes[offset]) | UInt16(n.bytes[offset + 1]) << 8) / 1024)
                offset += 2
            }
        }
        return (rates, rr)
    }

    static func rmssd(_ rr: [Double]) -> Double {
        let differences = zip(rr.dropFirst(), rr).map { ($0 - $1) * 1000 }
        return (differences.map { $0 * $0 }.reduce(0, +) / Double(differences.count)).squareRoot()
    }

    /// The fuzz targets replay on one thread (`TraceReplayer.replay(into:)`); `replay` goes through
    /// the ring to the session's consumer. Both must build the same workout. (Zone updates to "no
    /// zone" depend on when ticks come, so they may differ.)
    @Test(arguments: ["ride-60min-hr-power.jsonl", "multisport-bike-run.jsonl"])
    func theSynchronousReplayBuildsTheSessionsWorkout(capture: String) throws {
        let url = Self.captures.appendingPathComponent(capture)
        var machine = WorkoutStateMachine(activityType: .cycling)
        try machine.setCustomZoneConfiguration(WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [120, 140, 155, 170]))
        try machine.setCustomZoneConfiguration(
            WorkoutZoneConfiguration(quantityType: .cyclingPower, boundaryValues: [138, 188, 225, 263, 300]))

        let reader = try CaptureFile.openTrace(url)
        let replayer = TraceReplayer(reader: reader)
        let builder = LiveWorkoutBuilder(machine)
        try builder.beginCollection(at: .zero, date: reader.header.start)
        let session = WorkoutSession(builder: builder)
        let ring = session.makeRing()
        var viaSession = try session.run(producers: [{ replayer.produce(into: ring, started: .now) }]).get()

        let direct = TraceReplayer(reader: try CaptureFile.openTrace(url))
        try machine.beginCollection(at: .zero, date: reader.header.start)
        #expect(direct.replay(into: &machine) == session.warnings)
        var viaReplay = try machine.finishWorkout()
        #expect(direct.failure == nil && replayer.failure == nil)
        #expect(viaReplay.samples.count > 5_000)
        viaSession.zoneUpdates = []
        viaReplay.zoneUpdates = []
        #expect(viaReplay == viaSession)
    }

    @Test func run30MinutesWithHeartRateStrap() throws {
        let w = try #require(try Self.replay("run-30min-hr.jsonl")["workout"])
        #expect(w["activityType"] == "running")
        #expect(w["duration"] == 1800)
        #expect(w["activeDuration"] == 1800)
        // Schedule: 115 bpm 0-300 (z0), 135 300-600 (z1), 148 600-1200 (z2), 160 1200-1500 (z3),
        // 172 1500-1620 (z4), 125 1620-1800 (z0); samples every second, so each segment's length.
        #expect(Self.durations(w["zoneGroups"]?["heartRate"]) == [480, 300, 600, 300, 120])
        #expect(w["zoneGroups"]?["cyclingPower"] == nil)  // no power meter, no power zones
        let (rates, rr) = try Self.heartData("run-30min-hr.jsonl")
        let hr = w["statistics"]?["heartRate"]
        #expect(hr?["count"]?.integerValue == rates.count)
        #expect(abs((hr?["average"]?.doubleValue ?? 0) - rates.map(\.bpm).reduce(0, +) / Double(rates.count)) < 1e-9)
        #expect(hr?["maximum"]?.doubleValue == rates.map(\.bpm).max())
        #expect(abs((w["statistics"]?["rmssd"]?.doubleValue ?? 0) - Self.rmssd(rr)) < 1e-6)
        #expect(w["activities"]?.arrayValue?.count == 1)
    }

    @Test func ride60MinutesWithPausesDropoutAndLaps() throws {
        let w = try #require(try Self.replay("ride-60min-hr-power.jsonl")["workout"])
        #expect(w["activityType"] == "cycling")
        // 3780 s with pauses 1200-1320 and 2400-2460.
        #expect(w["duration"] == 3780)
        #expect(w["activeDuration"] == 3600)
        // Power zones (FTP 250: 138, 188, 225, 263, 300 W). Laps at 120, 165, 205, 245, 280, 320
        // and 150 W. The power meter drops out from 2000 to 2040 inside the 245 W lap: its last
        // sample at 1999.75 s holds 3 s, to 2002.75, so z3 loses 2040 - 2002.75 = 37.25 s.
        let expectedPower: [Double] = [600, 600 + 1080, 1800 - 1320, 2200 - 1800 - 37.25, 2400 - 2200, 2700 - 2460]
        #expect(Self.durations(w["zoneGroups"]?["cyclingPower"]) == expectedPower)
        // Heart rate (no dropout): 120, 135 + 132, 148, 158 + 162, 172 bpm by the same laps.
        let expectedHeartRate: [Double] = [600, 600 + 1080, 480, 400 + 200, 240]
        #expect(Self.durations(w["zoneGroups"]?["heartRate"]) == expectedHeartRate)
        #expect(w["laps"]?.arrayValue?.count == 7)
        let events = w["events"]?.arrayValue?.map { "\($0["type"]!.stringValue!)@\($0["t"]!.integerValue!)" } ?? []
        #expect(events.contains("pause@1200") && events.contains("resume@1320"))
        #expect(events.contains("pause@2400") && events.contains("resume@2460"))
        #expect(events.contains("sensorLost@2000") && events.contains("sensorRegained@2040"))

        // Energy worked out from the file: each power sample holds until the next one or 3 s,
        // whichever is first, outside the pauses.
        let power = try Self.notifications("ride-60min-hr-power.jsonl").filter { $0.device == "power" }
        let pauses: [(Double, Double)] = [(1200, 1320), (2400, 2460)]
        func active(_ a: Double, _ b: Double) -> Double {
            pauses.reduce(b - a) { left, p in left - max(0, min(b, p.1) - max(a, p.0)) }
        }
        var joules = 0.0
        var activeWatts: [Double] = []
        for (i, n) in power.enumerated() {
            let watts = Double(Int16(bitPattern: UInt16(n.bytes[2]) | UInt16(n.bytes[3]) << 8))
            let next = i + 1 < power.count ? power[i + 1].t : 3780
            joules += watts * active(n.t, min(next, n.t + 3))
            if !pauses.contains(where: { $0.0 <= n.t && n.t < $0.1 }) { activeWatts.append(watts) }
        }
        let p = w["statistics"]?["cyclingPower"]
        #expect(abs((p?["energy"]?.doubleValue ?? 0) - joules / 1000) < 1e-6)
        #expect(abs((p?["average"]?.doubleValue ?? 0) - activeWatts.reduce(0, +) / Double(activeWatts.count)) < 1e-9)
        #expect(p?["count"]?.integerValue == activeWatts.count)
        let cadence = w["statistics"]?["cadence"]?["average"]?.doubleValue ?? 0
        #expect(abs(cadence - 90) < 0.5)  // the captures pedal at 90 rpm
        #expect(w["statistics"]?["malformedNotifications"] == 0)
        #expect(w["statistics"]?["droppedSamples"] == 0)
    }

    @Test func multisportBikeThenRun() throws {
        let w = try #require(try Self.replay("multisport-bike-run.jsonl")["workout"])
        #expect(w["activityType"] == "multisport")
        let activities = try #require(w["activities"]?.arrayValue)
        #expect(activities.map { $0["activityType"]?.stringValue } == ["cycling", "running"])
        // Bike 0-600: HR 135 (z1) then 150 (z2); power 200 W (z2) 0-300, 255 W (z3) 300-590,
        // last sample at 589.75 holding to 592.75. Run 600-1080: HR 160 (z3), no power.
        #expect(Self.durations(activities[0]["zoneGroups"]?["heartRate"]) == [0, 300, 300, 0, 0])
        #expect(Self.durations(activities[0]["zoneGroups"]?["cyclingPower"]) == [0, 0, 300, 292.75, 0, 0])
        #expect(Self.durations(activities[1]["zoneGroups"]?["heartRate"]) == [0, 0, 0, 480, 0])
        #expect(activities[1]["zoneGroups"]?["cyclingPower"] == nil)
        #expect(Self.durations(w["zoneGroups"]?["heartRate"]) == [0, 300, 300, 480, 0])
        #expect(activities[1]["start"] == "2026-11-03T09:10:00Z")
    }

    @Test func eventsListsEveryZoneUpdate() throws {
        let root = try Self.replay("run-30min-hr.jsonl", ["--events"])
        let updates = try #require(root["zoneUpdates"]?.arrayValue)
        // none→z0 at 0, then z1, z2, z3, z4, z0: one update per change of zone.
        #expect(updates.map { $0["current"]?.integerValue } == [0, 1, 2, 3, 4, 0])
        #expect(updates.map { $0["t"]?.integerValue } == [0, 300, 600, 1200, 1500, 1620])
        #expect(updates.first?["previous"] == .null)
        #expect(updates.allSatisfy { $0["quantityType"] == "heartRate" })
    }

    @Test func customZonesFromFlags() throws {
        let w = try Self.replay("run-30min-hr.jsonl", ["--hr-zones", "130,155"])["workout"]
        let group = w?["zoneGroups"]?["heartRate"]
        #expect(group?["configuration"]?["source"] == "custom")
        // 115 and 125 bpm (480 s) below 130; 135 and 148 (900 s) between; 160 and 172 (420 s) from 155.
        #expect(Self.durations(group) == [480, 900, 420])
    }

    @Test func birthDateGivesTheAgeOnTheDayOfTheRide() throws {
        // Born 1986-11-02: 39 on the run's day (2026-11-01), so the maximum is 208 - 0.7 × 39 = 180.7
        // and the first boundary 50 + 0.6 × 130.7 = 128.42 → 128; at 40 it would be the same 128, so
        // check the last boundary instead: 50 + 0.9 × 130.7 = 167.63 → 168 (at 40: 167).
        let run = runCLI([
            "replay", Self.captures.appendingPathComponent("run-30min-hr.jsonl").path, "--json", "--birth-date",
            "1986-11-02", "--resting-hr", "50",
        ])
        #expect(run.status == .success, "\(run.errors)")
        let zones = try JSONValue(parsing: run.output)["workout"]?["zoneGroups"]?["heartRate"]?["configuration"]?["zones"]
        #expect(zones?.arrayValue?.last?["minimum"] == 168)
    }

    @Test func humanSummaryShowsBars() {
        let run = runCLI(["replay", Self.captures.appendingPathComponent("run-30min-hr.jsonl").path] + Self.profile)
        #expect(run.status == .success)
        #expect(run.output.contains("Running workout"))
        #expect(run.output.contains("Heart rate zones (system)"))
        #expect(run.output.contains("Zone 3  141-154 bpm       10:00  ██████████████████████████████"))
    }

    func writeTrace(_ lines: [String]) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString).jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    static let header = #"{"sensorbridge":"trace","version":1,"start":"2026-11-29T07:00:00Z","devices":{"hr":{}}}"#

    @Test func malformedNotificationsAreCountedAndSkipped() throws {
        let path = try writeTrace([
            Self.header,
            #"{"t":0,"device":"hr","uuid":"2a37","hex":"0078"}"#,
            #"{"t":1,"device":"hr","uuid":"2a37","hex":"1878"}"#,  // energy flagged, missing
            #"{"t":2,"device":"hr","uuid":"2a37","hex":"0079"}"#,
            #"{"t":3,"event":"end"}"#,
        ])
        let run = runCLI(["replay", path, "--json", "--hr-zones", "100,150"])
        let w = try JSONValue(parsing: run.output)["workout"]
        #expect(w?["statistics"]?["malformedNotifications"] == 1)
        #expect(w?["statistics"]?["heartRate"]?["count"] == 2)
        #expect(Self.durations(w?["zoneGroups"]?["heartRate"]) == [0, 3, 0])
    }

    @Test func impossibleEventsAreSkippedWithAWarning() throws {
        let path = try writeTrace([Self.header, #"{"t":1,"event":"resume"}"#, #"{"t":2,"event":"end"}"#])
        let run = runCLI(["replay", path, "--json"])
        #expect(run.status == .success)
        #expect(run.errors.contains("cannot resume a workout that is collecting"))
    }

    @Test func badInputGivesClearErrors() throws {
        let broken = try writeTrace([Self.header, #"{"t":1,"device":"hr","uuid":"2a37"}"#])
        let run = runCLI(["replay", broken])
        #expect(run.status == .failure)
        #expect(run.errors.contains("line 2"))
        #expect(runCLI(["replay", "/nonexistent/trace.jsonl"]).status == .failure)
        #expect(runCLI(["replay", broken, "--pace", "slow"]).errors.contains("--pace slow: give fast, realtime or a factor such as 4 (0.001 to 1000000)"))
        #expect(runCLI(["replay", broken, "--hr-zones", "150,140"]).status == .usage)
        #expect(runCLI(["replay", broken, "--age", "40", "--resting-hr", "200"]).status == .usage)
        #expect(runCLI(["replay", broken, "--activity", "juggling"]).errors.contains("cycling"))
        #expect(runCLI(["replay"]).status == .usage)
        #expect(runCLI(["replay", broken, "--events"]).status == .usage)
    }

    /// A trace whose last line a crash cut short replays up to the line before, with a warning
    /// naming the file and the line; a line cut short in the middle still stops the replay.
    @Test func aTraceWhoseLastLineWasCutShortReplaysWithAWarning() throws {
        let lines = [
            Self.header,
            #"{"t":0,"device":"hr","uuid":"2a37","hex":"0078"}"#,
            #"{"t":1,"device":"hr","uuid":"2a37","hex":"00a0"}"#,
            #"{"t":2,"device":"hr","uuid":"2a37","hex":"0078"}"#,
        ]
        let whole = try writeTrace(lines)
        let cut = try writeTrace(lines)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: cut))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"t":3,"device":"hr","uuid":"2a37","he"#.utf8))
        try handle.close()
        let expected = runCLI(["replay", whole, "--json", "--hr-zones", "130,150"])
        let run = runCLI(["replay", cut, "--json", "--hr-zones", "130,150"])
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.errors.contains("sensorbridge replay: \(cut): line 5: the last line is cut short"), "\(run.errors)")
        #expect(try JSONValue(parsing: run.output) == JSONValue(parsing: expected.output))
        let middle = try writeTrace([lines[0], lines[1], #"{"t":1,"device":"hr","#, lines[3]])
        let stopped = runCLI(["replay", middle, "--json"])
        #expect(stopped.status == .failure && stopped.errors.contains("\(middle): line 3: not JSON"), "\(stopped.errors)")
    }

    /// A recording without a single value (a strap without skin contact sends nothing that
    /// counts) is not saved, and the command says so; --save-empty keeps it.
    @Test func anEmptyRecordingIsNotSavedUnlessAsked() throws {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) } }
        let noContact = try writeTrace([
            Self.header,
            #"{"t":0,"device":"hr","uuid":"2a37","hex":"0400"}"#,
            #"{"t":1,"device":"hr","uuid":"2a37","hex":"0400"}"#,
            #"{"t":2,"event":"end"}"#,
        ])
        let run = runCLI(["replay", noContact, "--save", "--store", store])
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.errors.contains("sensorbridge replay: no values were recorded: nothing saved"), "\(run.errors)")
        #expect(!run.output.contains("Saved as workout"))
        let listed = runCLI(["workouts", "list", "--json", "--store", store])
        #expect(try JSONValue(parsing: listed.output)["workouts"]?.arrayValue?.isEmpty == true, "\(listed.output)")
        let headerOnly = try writeTrace([Self.header])
        #expect(runCLI(["replay", headerOnly, "--save", "--json", "--store", store]).errors.contains("nothing saved"))
        let kept = runCLI(["replay", noContact, "--save", "--save-empty", "--store", store])
        #expect(kept.status == .success && kept.output.contains("Saved as workout"), "\(kept.errors)")
        let saved = try JSONValue(parsing: runCLI(["workouts", "list", "--json", "--store", store]).output)["workouts"]?.arrayValue
        #expect(saved?.count == 1)
        #expect(runCLI(["replay", noContact, "--save-empty"]).status == .usage)
    }

    @Test func realtimePaceReplaysTheSameWorkout() throws {
        let path = try writeTrace([
            Self.header,
            #"{"t":0,"device":"hr","uuid":"2a37","hex":"0078"}"#,
            #"{"t":0.2,"device":"hr","uuid":"2a37","hex":"00a0"}"#,
            #"{"t":0.3,"event":"end"}"#,
        ])
        let fast = try JSONValue(parsing: runCLI(["replay", path, "--json", "--hr-zones", "130,150"]).output)
        let paced = try JSONValue(parsing: runCLI(["replay", path, "--json", "--hr-zones", "130,150", "--pace", "2"]).output)
        #expect(fast == paced)
        #expect(Self.durations(fast["workout"]?["zoneGroups"]?["heartRate"]) == [0.2, 0, 0.1])
    }

    @Test func aPacedReplayShowsHowFarItIsOnlyOnATerminal() throws {
        let path = try writeTrace([
            Self.header,
            #"{"t":0,"device":"hr","uuid":"2a37","hex":"0078"}"#,
            #"{"t":1.5,"device":"hr","uuid":"2a37","hex":"00a0"}"#,
            #"{"t":2.2,"device":"hr","uuid":"2a37","hex":"00a0"}"#,
        ])
        func errors(terminal: Bool, pace: String) -> String {
            let context = CommandContext(
                input: LineReader(text: ""), output: TextOutput(), errors: TextOutput(), errorsAreTerminal: terminal)
            #expect(SensorBridgeCLI.run(["replay", path, "--json", "--pace", pace], context: context) == .success)
            return context.errors.text
        }
        let clear = "\r\u{1B}[K"
        #expect(
            errors(terminal: true, pace: "20")
                == ["0:00", "0:01", "0:02"].map { clear + "sensorbridge replay: \($0) replayed" }.joined() + clear)
        #expect(errors(terminal: false, pace: "20") == "")
        #expect(errors(terminal: true, pace: "fast") == "")
    }
}
