import Export
import Foundation
import SensorBridge
import SensorCore
import SensorTestSupport
import Testing
import WorkoutStore
import Workouts
import Zones

/// FIT files checked by Garmin's own FIT SDK for Python (PyPI garmin-fit-sdk, installed into
/// .build/venv by scripts/install-deps) through scripts/fit-check.py: the integrity check passes,
/// the decoder reports no error, and records, sessions, laps, time in zone and RR intervals are
/// those of the workout. Skipped, saying why, only when the SDK is not installed.
@Suite(.enabled(if: FITCheck.unavailableReason == nil, "\(FITCheck.unavailableReason ?? "")"))
struct FITDecodeTests {
    static let profile = AthleteProfile(age: 40, restingHeartRate: 50, functionalThresholdPower: 250)
    static let startDate = Date(timeIntervalSince1970: 1_793_640_600)  // 2026-11-02T17:30:00Z

    /// Encodes, decodes with the SDK and checks everything that must equal the workout.
    @discardableResult
    static func check(_ workout: Workout, profile: AthleteProfile? = profile) throws -> JSONValue {
        let bytes = FITActivityEncoder(profile: profile).encode(workout)
        let decoded = try FITCheck.decode(bytes)
        #expect(decoded["integrity"] == true)
        #expect(decoded["errors"]?.arrayValue?.isEmpty == true, "\(decoded["errors"] ?? nil)")
        #expect(decoded["fileType"] == "activity")

        // A record for each whole second of active time at which a value holds (a sample of a shown
        // quantity at or before it, within its hold: 5 s for heart rate, 3 s for the others), at
        // base + second.
        let base = Double(Int64(workout.startDate.timeIntervalSince1970) - 631_065_600)
        let shown: [QuantityType: Duration] = [
            .heartRate: .seconds(5), .cyclingPower: .seconds(3), .cyclingCadence: .seconds(3), .cyclingSpeed: .seconds(3),
            .pedalPowerBalance: .seconds(3),
        ]
        let seconds = (0..<Int(workout.duration.seconds.rounded(.up))).filter { second in
            let t = workout.start + .seconds(second)
            let holds = workout.samples.contains { sample in
                shown[sample.type].map { sample.time <= t && t < sample.time + $0 } ?? false
            }
            return holds && t < workout.end && !workout.pauses.contains { $0.contains(t) }
        }
        #expect(decoded["records"]?.integerValue == seconds.count)
        #expect(decoded["recordTimestamps"]?.arrayValue?.compactMap(\.doubleValue) == seconds.map { base + Double($0) })

        // Sessions: one per activity, with the stored statistics and zone durations.
        let sessions = try #require(decoded["sessions"]?.arrayValue)
        let timeInZone = decoded["timeInZone"]?.arrayValue ?? []
        let sessionZones = timeInZone.filter { $0["reference_mesg"] == "session" }
        let lapZones = timeInZone.filter { $0["reference_mesg"] == "lap" }
        let activities = workout.activities.count > 1 ? workout.activities : [
            WorkoutActivity(
                activityType: workout.activityType, start: workout.start, end: workout.end,
                zoneGroupsByType: workout.zoneGroupsByType)
        ]
        #expect(sessions.count == activities.count)
        #expect(decoded["activity"]?["num_sessions"]?.integerValue == activities.count)
        #expect(close(decoded["activity"]?["total_timer_time"], workout.activeDuration.seconds))
        if activities.count == 1, let session = sessions.first {
            let s = workout.statistics
            #expect(close(session["total_elapsed_time"], workout.duration.seconds))
            #expect(close(session["total_timer_time"], workout.activeDuration.seconds))
            #expect(session["avg_heart_rate"]?.doubleValue == s.heartRate.map { $0.average.rounded() })
            #expect(session["max_heart_rate"]?.doubleValue == s.heartRate?.maximum)
            #expect(session["min_heart_rate"]?.doubleValue == s.heartRate?.minimum)
            #expect(session["avg_power"]?.doubleValue == s.cyclingPower.map { max(0, $0.average).rounded() })
            #expect(session["max_power"]?.doubleValue == s.cyclingPower?.maximum)
            #expect(session["normalized_power"]?.doubleValue == s.cyclingPower?.normalized?.rounded())
            #expect(session["total_work"]?.doubleValue == s.cyclingPower.map { ($0.energy * 1000).rounded() })
            #expect(session["avg_cadence"]?.doubleValue == s.cadence.map { $0.average.rounded() })
            // Calories from the strap's energy, else the work on the pedals (kJ ≈ kcal).
            #expect(session["threshold_power"]?.doubleValue == profile?.functionalThresholdPower.map(Double.init))
            let calories = s.energyExpended.map { $0 / 4.184 } ?? s.cyclingPower.map { max(0, $0.energy) }
            #expect(session["total_calories"]?.doubleValue == calories.map { $0.rounded() })
            // A single lap, worked out from the samples, says what the stored statistics say.
            if workout.laps.count == 1, let lap = decoded["laps"]?.arrayValue?.first {
                for key in ["avg_heart_rate", "max_heart_rate", "min_heart_rate", "avg_power", "max_power",
                    "normalized_power", "total_work", "avg_cadence", "total_timer_time"] {
                    #expect(lap[key] == session[key], "lap \(key)")
                }
            }
        }
        // Each session's own load: TSS (× 10) from its NP and the profile's FTP, else its hrTSS, and
        // IF (× 1000) where it has power; the sessions' add up to the workout's.
        let loads = workout.trainingLoad(athlete: profile, on: CalendarDate(workout.startDate, in: Calendar.current)).activities
        #expect(loads.count == sessions.count)
        for (session, load) in zip(sessions, loads) {
            #expect(session["training_stress_score"]?.doubleValue == load.stressScore.map { ($0 * 10).rounded() / 10 })
            #expect(session["intensity_factor"]?.doubleValue == load.intensityFactor.map { ($0 * 1000).rounded() / 1000 })
        }
        #expect(sessionZones.count == activities.filter { !$0.zoneGroupsByType.isEmpty }.count)
        for (index, activity) in activities.enumerated() where !activity.zoneGroupsByType.isEmpty {
            let zones = try #require(sessionZones.first { $0["reference_index"]?.integerValue == index })
            for (type, key) in [(QuantityType.heartRate, "time_in_hr_zone"), (.cyclingPower, "time_in_power_zone")] {
                let stored = activity.zoneGroupsByType[type]?.durations.map(\.seconds)
                #expect(close(zones[key], stored), "\(key) of session \(index)")
                // Laps of this session add up to it (each rounded to the millisecond).
                let laps = lapZones.filter { lap in
                    let lapIndex = lap["reference_index"]?.integerValue ?? -1
                    let first = sessions[index]["first_lap_index"]?.integerValue ?? 0
                    return (first..<(first + (sessions[index]["num_laps"]?.integerValue ?? 0))).contains(lapIndex)
                }
                guard let stored else {
                    #expect(laps.allSatisfy { $0[key] == nil })
                    continue
                }
                let sums = stored.indices.map { zone in
                    laps.reduce(0.0) { $0 + ($1[key]?.arrayValue?[zone].doubleValue ?? 0) }
                }
                #expect(zip(sums, stored).allSatisfy { abs($0 - $1) <= 0.0005 * Double(laps.count) + 1e-9 }, "\(key) laps \(sums) vs \(stored)")
            }
        }
        #expect(decoded["laps"]?.arrayValue?.count == lapZones.count || sessionZones.isEmpty)

        // Every RR interval, in milliseconds.
        let rr = workout.samples.filter { $0.type == .rrInterval }.map { ($0.value * 1000).rounded() / 1000 }
        #expect(decoded["hrvIntervals"]?.arrayValue?.compactMap(\.doubleValue) == rr)
        return decoded
    }

    /// Whether a decoded number (or array) equals `expected` to the millisecond.
    static func close(_ value: JSONValue?, _ expected: Double) -> Bool {
        guard let value = value?.doubleValue else { return false }
        return abs(value - expected) <= 0.0005
    }

    static func close(_ value: JSONValue?, _ expected: [Double]?) -> Bool {
        guard let expected else { return value == nil }
        guard let values = value?.arrayValue, values.count == expected.count else { return false }
        return zip(values, expected).allSatisfy { close($0, $1) }
    }

    static let bundledRide = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Captures/ride-60min-hr-power.jsonl").standardized.path

    /// A new folder of its own under the temporary folder; the caller removes it.
    static func temporaryFolder() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The bundled one-hour ride, replayed and saved by `sensorbridge replay --save` and loaded
    /// from the store, as `sensorbridge export` will find it.
    @Test func bundledRideFromTheStore() throws {
        let directory = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("workouts.sqlite").path
        let capture = Self.bundledRide
        let context = CommandContext(input: LineReader(text: ""), output: TextOutput(), errors: TextOutput())
        let status = SensorBridgeCLI.run(
            ["replay", capture, "--age", "40", "--resting-hr", "50", "--ftp", "250", "--save", "--store", store],
            context: context)
        #expect(status == .success, "\(context.errors.text)")
        let workouts = try WorkoutStore(path: store)
        let workout = try workouts.workout(try #require(try workouts.latestWorkoutID()))
        #expect(workout.laps.count == 7 && workout.pauses.count == 2)
        let decoded = try Self.check(workout)
        #expect(decoded["laps"]?.arrayValue?.count == 7)
        let zones = try #require(decoded["timeInZone"]?.arrayValue?.first { $0["reference_mesg"] == "session" })
        #expect(zones["hr_zone_high_boundary"] == [128, 141, 154, 167, nil])
        #expect(zones["power_zone_high_boundary"] == [138, 188, 225, 263, 300, nil])
        #expect(zones["hr_calc_type"] == "percent_hrr")
        #expect(zones["pwr_calc_type"] == "percent_ftp")
        #expect(zones["max_heart_rate"] == 180)
        #expect(zones["resting_heart_rate"] == 50)
        #expect(zones["functional_threshold_power"] == 250)
        #expect(decoded["recordFields"]?.arrayValue?.compactMap(\.stringValue).contains("power") == true)
    }

    /// Target zones travel as developer fields of the session (FIT has none of its own), which
    /// Garmin's SDK reads by their names: the zones (1-based), the time in them and its share.
    @Test func targetZonesAreSessionDeveloperFields() throws {
        var workout = try SyntheticRide.workout(seconds: 1200, seed: 5, startDate: Self.startDate)
        #expect(workout.zoneGroupsByType[.heartRate] != nil && workout.zoneGroupsByType[.cyclingPower] != nil)
        workout.targets = [
            WorkoutTarget(quantityType: .heartRate, zones: 1...2), WorkoutTarget(quantityType: .cyclingPower, zones: 3...3),
        ]
        let decoded = try Self.check(workout)
        let fields = try #require(decoded["sessionDeveloperFields"]?.arrayValue?.first)
        let times = workout.timeInTargets()
        #expect(fields["hr_target_low_zone"] == 2 && fields["hr_target_high_zone"] == 3)
        #expect(fields["power_target_low_zone"] == 4 && fields["power_target_high_zone"] == 4)
        #expect(fields["time_in_hr_target"]?.doubleValue == times[0].time.seconds.rounded())
        #expect(fields["hr_target_percent"]?.doubleValue == (times[0].share * 100).rounded())
        #expect(fields["time_in_power_target"]?.doubleValue == times[1].time.seconds.rounded())
        #expect(fields["power_target_percent"]?.doubleValue == (times[1].share * 100).rounded())
        // Without targets, no developer data at all.
        workout.targets = []
        #expect(try Self.check(workout)["sessionDeveloperFields"]?.arrayValue?.first == .object([:]))
    }

    /// Pedal power balance end to end: a trace whose power meter sends the balance (left pedal
    /// as reference for the first minute, unknown reference after) is replayed, saved, loaded and
    /// exported; the records carry left_right_balance only where the reference was the left pedal.
    @Test func pedalPowerBalanceFromTraceToRecords() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var lines = [#"{"sensorbridge":"trace","version":1,"start":"2026-11-02T17:30:00Z","devices":{"power":{}}}"#]
        for second in 0..<120 {
            // Flags: bit 0 balance present, bit 1 reference is the left pedal; 200 W; 97 half-percent = 48.5 %.
            let flags: UInt8 = second < 60 ? 0x03 : 0x01
            lines.append(#"{"t":\#(second),"device":"power","uuid":"2a63","hex":"\#(Hex.encode([flags, 0, 200, 0, 97]))"}"#)
        }
        lines.append(#"{"t":120,"event":"end"}"#)
        let trace = directory.appendingPathComponent("balance.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: trace, atomically: true, encoding: .utf8)
        let store = directory.appendingPathComponent("workouts.sqlite").path
        let context = CommandContext(input: LineReader(text: ""), output: TextOutput(), errors: TextOutput())
        let status = SensorBridgeCLI.run(["replay", trace.path, "--ftp", "250", "--save", "--store", store], context: context)
        #expect(status == .success, "\(context.errors.text)")
        let workouts = try WorkoutStore(path: store)
        let workout = try workouts.workout(try #require(try workouts.latestWorkoutID()))
        #expect(workout.samples.filter { $0.type == .pedalPowerBalance }.map(\.value) == Array(repeating: 48.5, count: 60))
        let decoded = try Self.check(workout)
        let balance = decoded["recordValues"]?["left_right_balance"]?.arrayValue ?? []
        // 48.5 % left is 51.5 % right: 52 with bit 7 ("right") set; held for 3 s from the last one (t = 59).
        #expect(balance == Array(repeating: .number(Double(0x80 | 52)), count: 62) + Array(repeating: .null, count: 58))
    }

    /// System heart-rate zones say how they were made: the workout's model gives `hr_calc_type`, and
    /// its lactate-threshold heart rate `threshold_heart_rate`; custom zones stay custom.
    @Test(arguments: [
        (HeartRateZoneModel.reserve, "percent_hrr", [128, 141, 154, 167] as [Int]),
        (.maximum, "percent_max_hr", [108, 126, 144, 162]),
        (.lactateThreshold, "percent_lthr", [134, 149, 155, 165, 170, 175]),
    ])
    func theHeartRateModelAndThresholdAreInTimeInZone(model: HeartRateZoneModel, calculation: String, boundaries: [Int]) throws {
        var athlete = Self.profile
        athlete.lactateThresholdHeartRate = 165
        let zones = ZonePreferences(profile: athlete, heartRateZoneModel: model)
        let workout = try Self.workout(seconds: 300, zones: zones) { second in [(.heartRate, 120 + Double(second % 60))] }
        #expect(workout.profile?.heartRateZoneModel == model)
        let decoded = try FITCheck.decode(ExportFormat.fit.encode(workout))
        let session = try #require(decoded["timeInZone"]?.arrayValue?.first { $0["reference_mesg"] == "session" })
        #expect(session["hr_calc_type"] == .string(calculation))
        #expect(session["threshold_heart_rate"] == 165)
        #expect(session["hr_zone_high_boundary"] == .array(boundaries.map { .number(Double($0)) } + [.null]))

        var custom = zones
        custom.setPreferredConfiguration(try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [120, 150]))
        let customWorkout = try Self.workout(seconds: 120, zones: custom) { _ in [(.heartRate, 130)] }
        let customZones = try FITCheck.decode(ExportFormat.fit.encode(customWorkout))["timeInZone"]?.arrayValue?.first
        #expect(customZones?["hr_calc_type"] == "custom")
    }

    /// The profile changes after a ride is saved: its FIT file carries the FTP and heart rates it
    /// was recorded with, not today's. A workout stored without a profile (as before store
    /// migration 5) gets none of those fields, never today's, and a note says so.
    @Test func anExportAfterTheProfileChangedCarriesTheRecordedProfile() throws {
        let directory = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("workouts.sqlite").path
        let capture = Self.bundledRide
        func run(_ arguments: [String]) -> (status: SensorBridge.ExitStatus, errors: String) {
            let context = CommandContext(input: LineReader(text: ""), output: TextOutput(), errors: TextOutput())
            return (SensorBridgeCLI.run(arguments + ["--store", store], context: context), context.errors.text)
        }
        #expect(run(["profile", "set", "--age", "40", "--resting-hr", "50", "--ftp", "250"]).status == .success)
        #expect(run(["replay", capture, "--save"]).status == .success)
        #expect(run(["profile", "set", "--age", "30", "--resting-hr", "44", "--max-hr", "195", "--ftp", "310"]).status == .success)

        let recorded = run(["export", "1", "--format", "fit", "-o", directory.appendingPathComponent("1.fit").path])
        #expect(recorded.status == .success && recorded.errors.isEmpty, "\(recorded.errors)")
        let decoded = try FITCheck.decode(Array(try Data(contentsOf: directory.appendingPathComponent("1.fit"))))
        #expect(decoded["sessions"]?.arrayValue?.first?["threshold_power"] == 250)
        for zones in decoded["timeInZone"]?.arrayValue ?? [] {
            #expect(zones["functional_threshold_power"] == 250)
            #expect(zones["max_heart_rate"] == 180)
            #expect(zones["resting_heart_rate"] == 50)
            #expect(zones["power_zone_high_boundary"] == [138, 188, 225, 263, 300, nil] || zones["reference_mesg"] == "lap")
        }

        // The same ride without a recorded profile.
        let workouts = try WorkoutStore(path: store)
        var old = try workouts.workout(WorkoutID(1))
        old.profile = nil
        let oldID = try workouts.save(old)
        let plain = run(["export", "\(oldID)", "--format", "fit", "-o", directory.appendingPathComponent("2.fit").path])
        #expect(plain.status == .success)
        #expect(plain.errors.contains("workout \(oldID) was saved before sensorbridge kept the profile with each workout"))
        let none = try FITCheck.decode(Array(try Data(contentsOf: directory.appendingPathComponent("2.fit"))))
        #expect(none["sessions"]?.arrayValue?.first?["threshold_power"] == nil)
        let zones = try #require(none["timeInZone"]?.arrayValue)
        #expect(!zones.isEmpty)
        for zone in zones {
            #expect(zone["functional_threshold_power"] == nil && zone["max_heart_rate"] == nil && zone["resting_heart_rate"] == nil)
            #expect(zone["time_in_power_zone"] != nil)
        }
        // Only FIT files carry the profile: no note for the others.
        let tcx = run(["export", "\(oldID)", "--format", "tcx", "-o", directory.appendingPathComponent("2.tcx").path])
        #expect(tcx.status == .success && tcx.errors.isEmpty)
    }

    /// A workout with an auto-lap every 100 s of active time, an auto-pause (power at 0 W for
    /// 30 s; 5 s of stillness pause it, the next pedal stroke resumes it), a manual lap and a
    /// manual pause, built by the real state machine.
    static func autoRulesWorkout() throws -> Workout {
        var machine = WorkoutStateMachine(activityType: .cycling, preferences: ZonePreferences(profile: profile))
        machine.sensors = SyntheticRide.sensors
        machine.autoLap = .seconds(100)
        machine.autoPause = .seconds(5)
        try machine.beginCollection(at: .seconds(3), date: startDate)
        for second in 0..<300 {
            let time = Duration.seconds(3 + second)
            if second == 170 { try machine.lap(at: time) }
            if second == 250 { try machine.pause(at: time) }
            if second == 260 { try machine.resume(at: time) }
            let watts: Double = (120..<150).contains(second) ? 0 : 200
            machine.add(Sample(sensor: SensorID(2), type: .cyclingPower, value: watts, time: time + .milliseconds(250)))
            machine.add(Sample(sensor: SensorID(1), type: .heartRate, value: 140, time: time + .milliseconds(250)))
        }
        try machine.endCollection(at: .seconds(303))
        return try machine.finishWorkout()
    }

    /// Timer events carry their timer_trigger (auto for the auto-pause and its resume) and each
    /// lap its lap_trigger (time for an auto-lap, manual for the person's, session_end for the last).
    @Test func timerAndLapTriggersSayWhatCausedThem() throws {
        let workout = try Self.autoRulesWorkout()
        let causes = workout.events.filter { [.pause, .resume, .lap].contains($0.kind) }.map { "\($0.name) \($0.cause)" }
        #expect(causes == ["lap auto", "pause auto", "resume auto", "lap manual", "pause manual", "resume manual", "lap auto"])
        let decoded = try Self.check(workout)
        let events = decoded["events"]?.arrayValue?.compactMap { event in
            event.arrayValue.map { "\($0[2].stringValue ?? "?") \($0[3].stringValue ?? "?")" }
        }
        #expect(events == ["start manual", "stop auto", "start auto", "stop manual", "start manual", "stop_all manual"])
        let laps = decoded["laps"]?.arrayValue?.compactMap { $0["lap_trigger"]?.stringValue }
        #expect(laps == ["time", "manual", "time", "session_end"])
        #expect(laps?.count == workout.laps.count)
    }

    /// A ride to a plan: each step's lap has its `wkt_step_index` (the repeat counted as a step,
    /// as FIT writes it) and lap_trigger time, the lap key's manual; the plan itself is the file's
    /// `workout` and `workout_step` messages, decoded by Garmin's SDK.
    @Test func aRideToAPlanCarriesItsStepsAndThePlan() throws {
        let plan = WorkoutPlan(
            name: "Two by one", entries: [
                .step(PlanStep(name: "Warm-up", length: .time(.seconds(60)), target: .rampOfFTP(from: 0.5, to: 0.7))),
                .repeated(count: 2, steps: [
                    PlanStep(length: .time(.seconds(60)), target: .watts(250...270), cadence: 90...100),
                    PlanStep(length: .time(.seconds(30)), target: .powerZones(1...2)),
                ]),
                .step(PlanStep(name: "Easy", length: .open, target: .heartRate(120...140))),
            ])
        var machine = WorkoutStateMachine(activityType: .cycling, preferences: ZonePreferences(profile: Self.profile))
        machine.sensors = SyntheticRide.sensors
        machine.plan = plan
        try machine.beginCollection(at: .seconds(3), date: Self.startDate)
        for second in 0..<300 {
            let time = Duration.seconds(3 + second) + .milliseconds(250)
            if second == 280 { try machine.lap(at: time) }
            machine.add(Sample(sensor: SensorID(2), type: .cyclingPower, value: 200, time: time))
            machine.add(Sample(sensor: SensorID(1), type: .heartRate, value: 130, time: time))
        }
        try machine.endCollection(at: .seconds(303))
        let workout = try machine.finishWorkout()
        let decoded = try Self.check(workout)
        let laps = decoded["laps"]?.arrayValue ?? []
        #expect(laps.map { $0["wkt_step_index"]?.integerValue } == [0, 1, 2, 1, 2, 4, nil])
        #expect(laps.map { $0["lap_trigger"]?.stringValue } == ["time", "time", "time", "time", "time", "manual", "session_end"])
        #expect(decoded["workout"]?["wkt_name"] == "Two by one" && decoded["workout"]?["num_valid_steps"] == 5)
        let steps = decoded["workoutSteps"]?.arrayValue ?? []
        #expect(steps.map { $0["duration_type"]?.stringValue } == ["time", "time", "time", "repeat_until_steps_cmplt", "open"])
        #expect(steps[1]["custom_target_power_low"] == 1250 && steps[1]["secondary_target_type"] == "cadence", "\(steps[1])")
    }

    /// The bundled `.zwo` plan (warm-up ramp, a steady step, intervals, cool-down) ridden by a
    /// ramp of 1 W every 6 s: a lap per step at the planned times, each with its step index; the
    /// plan's steps in the file as Garmin's SDK reads them.
    @Test func theBundledZwiftPlanRiddenIsALapPerStepInTheFIT() throws {
        let zwo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Captures/ramp-check.zwo")
        let plan = try WorkoutPlanFile.read(try Data(contentsOf: zwo.standardized))
        var machine = WorkoutStateMachine(activityType: .cycling, preferences: ZonePreferences(profile: Self.profile))
        machine.sensors = SyntheticRide.sensors
        machine.plan = plan
        try machine.beginCollection(at: .seconds(3), date: Self.startDate)
        for second in 0..<1500 {
            let time = Duration.seconds(3 + second)
            machine.add(Sample(sensor: SensorID(2), type: .cyclingPower, value: 100 + Double(second / 6), time: time))
        }
        try machine.endCollection(at: .seconds(1503))
        let workout = try machine.finishWorkout()
        let decoded = try Self.check(workout)
        let laps = decoded["laps"]?.arrayValue ?? []
        #expect(laps.map { $0["wkt_step_index"]?.integerValue } == [0, 1, 2, 3, 2, 3, 5])
        #expect(laps.map { $0["total_timer_time"]?.doubleValue } == [600, 300, 120, 60, 120, 60, 240])
        let steps = decoded["workoutSteps"]?.arrayValue ?? []
        #expect(decoded["workout"]?["wkt_name"] == "Ramp check" && steps.count == 6)
        #expect(steps.map { $0["duration_type"]?.stringValue } == ["time", "time", "time", "time", "repeat_until_steps_cmplt", "time"])
        #expect(steps[0]["custom_target_power_low"] == 40 && steps[0]["custom_target_power_high"] == 80, "\(steps[0])")
        // The warm-up's ramp is the ride's: met all along; the cool-down's never.
        #expect(workout.steps.first?.timeInTarget == .seconds(600) && workout.steps.last?.timeInTarget == .zero)
    }

    /// Synthetic ride: pauses, a power dropout, a lap every ten minutes.
    @Test func syntheticRideWithPausesAndLaps() throws {
        let workout = try SyntheticRide.workout(seconds: 3600, seed: 3, startDate: Self.startDate)
        let decoded = try Self.check(workout)
        #expect(decoded["laps"]?.arrayValue?.count == workout.laps.count)
        // Timer: start, stop and start around each of the two pauses, stop_all at the end.
        let events = decoded["events"]?.arrayValue?.compactMap { $0.arrayValue?[2].stringValue }
        #expect(events == ["start", "stop", "start", "stop", "start", "stop_all"])
        // Dropout: power absent (not 0) in records of the dropout beyond the 3 s hold.
        let power = decoded["recordValues"]?["power"]?.arrayValue ?? []
        #expect(power.contains(.null))
        #expect(!power.contains(0))
    }

    @Test func multisportBikeThenRun() throws {
        let workout = try SyntheticRide.workout(seconds: 1800, seed: 4, startDate: Self.startDate, runAfter: 1000)
        let decoded = try Self.check(workout)
        let sports = decoded["sessions"]?.arrayValue?.compactMap { $0["sport"]?.stringValue }
        #expect(sports == ["cycling", "running"])
        // The lap running 600-1200 is split where the run begins.
        let laps = decoded["laps"]?.arrayValue ?? []
        #expect(laps.count == 4)
        #expect(decoded["sessions"]?.arrayValue?[1]["first_lap_index"] == 2)
        // The run's session: heart rate of the samples received in it while not paused.
        let run = try #require(workout.activities.last)
        let rates = workout.samples.filter { sample in
            sample.type == .heartRate && (run.start..<run.end).contains(sample.time)
                && !workout.pauses.contains { $0.contains(sample.time) }
        }.map(\.value)
        let session = decoded["sessions"]?.arrayValue?[1]
        #expect(session?["avg_heart_rate"]?.doubleValue == (rates.reduce(0, +) / Double(rates.count)).rounded())
        #expect(session?["max_heart_rate"]?.doubleValue == rates.max())
        #expect(session?["avg_power"] == nil)
        #expect(Self.close(session?["total_elapsed_time"], (run.end - run.start).seconds))
    }

    /// A triathlon's transition begun live (`--activities cycling,running`) is a session of its
    /// own, sport `transition` (3), between the bike's and the run's, each with its time in zone.
    @Test func aTransitionIsASessionOfItsOwn() throws {
        var machine = WorkoutStateMachine(activityType: .cycling, preferences: ZonePreferences(profile: Self.profile))
        machine.sensors = SyntheticRide.sensors
        try machine.beginCollection(at: .zero, date: Self.startDate)
        for second in 0..<300 {
            let time = Duration.seconds(second)
            if second == 200 { try machine.beginActivity(.transition, at: time) }
            if second == 230 { try machine.beginActivity(.running, at: time) }
            machine.add(Sample(sensor: SensorID(1), type: .heartRate, value: 140, time: time + .milliseconds(250)))
        }
        try machine.endCollection(at: .seconds(300))
        let decoded = try Self.check(try machine.finishWorkout())
        let sessions = decoded["sessions"]?.arrayValue ?? []
        #expect(sessions.compactMap { $0["sport"]?.stringValue } == ["cycling", "transition", "running"], "\(sessions)")
        #expect(Self.close(sessions.dropFirst().first?["total_elapsed_time"], 30))
    }

    /// Issue 32: the bike's session has its power TSS and IF, the run's its hrTSS (no IF, no NP),
    /// and the workout's TSS is their sum, not the bike's IF over the whole workout.
    @Test func eachMultisportSessionHasItsOwnTrainingStressScore() throws {
        let workout = try SyntheticRide.workout(seconds: 1800, seed: 4, startDate: Self.startDate, runAfter: 1000)
        var profile = Self.profile
        profile.lactateThresholdHeartRate = 150
        let sessions = try #require(try Self.check(workout, profile: profile)["sessions"]?.arrayValue)
        let load = workout.trainingLoad(athlete: profile, on: CalendarDate(workout.startDate, in: Calendar.current))
        let (bike, run) = (load.activities[0], load.activities[1])
        #expect(sessions[0]["training_stress_score"]?.doubleValue == bike.trainingStressScore.map { ($0 * 10).rounded() / 10 })
        #expect(sessions[0]["intensity_factor"] != nil && sessions[0]["normalized_power"] != nil)
        #expect(sessions[1]["training_stress_score"]?.doubleValue == run.heartRateStressScore.map { ($0 * 10).rounded() / 10 })
        #expect(sessions[1]["training_stress_score"] != nil)
        #expect(sessions[1]["intensity_factor"] == nil && sessions[1]["normalized_power"] == nil)
        let sum = sessions.compactMap { $0["training_stress_score"]?.doubleValue }.reduce(0, +)
        #expect(abs(sum - (try #require(load.trainingStressScore))) <= 0.1)
        // The bike's IF over the whole workout, as before, would have said something else.
        let wholeIF = try #require(workout.statistics.cyclingPower?.normalized) / 250
        #expect(abs(workout.activeDuration.seconds / 3600 * wholeIF * wholeIF * 100 - sum) > 1)
    }

    @Test func localTimestampFollowsTheTimeZone() throws {
        let workout = try Self.workout(seconds: 60) { _ in [(.heartRate, 120)] }
        var encoder = FITActivityEncoder()
        encoder.timeZone = try #require(TimeZone(secondsFromGMT: -5 * 3600))
        let decoded = try FITCheck.decode(encoder.encode(workout))
        let activity = decoded["activity"]
        #expect(activity?["local_timestamp"]?.doubleValue == (activity?["timestamp"]?.doubleValue).map { $0 - 5 * 3600 })
    }

    /// Builds a workout from samples through the real state machine.
    static func workout(
        seconds: Int, zones: ZonePreferences = ZonePreferences(profile: profile), pauses: [Range<Int>] = [],
        samples: (Int) -> [(QuantityType, Double)]
    ) throws -> Workout {
        var machine = WorkoutStateMachine(activityType: .cycling, preferences: zones)
        machine.sensors = SyntheticRide.sensors
        try machine.beginCollection(at: .seconds(3), date: startDate)
        for second in 0..<seconds {
            let time = Duration.seconds(3 + second)
            if pauses.contains(where: { $0.lowerBound == second }) { try machine.pause(at: time) }
            if pauses.contains(where: { $0.upperBound == second }) { try machine.resume(at: time) }
            for (type, value) in samples(second) {
                machine.add(Sample(sensor: SensorID(type == .heartRate || type == .rrInterval ? 1 : 2), type: type, value: value, time: time + .milliseconds(250)))
            }
        }
        try machine.endCollection(at: .seconds(3 + seconds))
        return try machine.finishWorkout()
    }

    /// A strap with energy expended (kJ counter) and custom zones with a boundary that is not whole.
    @Test func heartRateOnly() throws {
        var zones = ZonePreferences(profile: Self.profile)
        zones.setPreferredConfiguration(try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [120.4, 150]))
        let workout = try Self.workout(seconds: 600, zones: zones) { second in
            [(.heartRate, 100 + Double(second % 90)), (.rrInterval, 0.6), (.energyExpended, Double(second / 2))]
        }
        let decoded = try Self.check(workout)
        #expect(decoded["recordFields"]?.arrayValue?.compactMap(\.stringValue) == ["heart_rate", "timestamp"])
        let timeInZone = decoded["timeInZone"]?.arrayValue?.first
        #expect(timeInZone?["time_in_power_zone"] == nil)
        #expect(timeInZone?["hr_zone_high_boundary"] == [120, 150, nil])
        #expect(timeInZone?["hr_calc_type"] == "custom")
        // 299 kJ from the strap's counter: 71 kcal.
        #expect(workout.statistics.energyExpended == 299)
        #expect(decoded["sessions"]?.arrayValue?.first?["total_calories"] == 71)
    }

    @Test func powerOnlyWithPedalBalance() throws {
        let workout = try Self.workout(seconds: 300) { second in
            [(.cyclingPower, Double(100 + second)), (.cyclingCadence, 90), (.pedalPowerBalance, 48.5), (.cyclingSpeed, 8.25)]
        }
        let decoded = try Self.check(workout)
        #expect(decoded["sessions"]?.arrayValue?.first?["avg_heart_rate"] == nil)
        let values = decoded["recordValues"]
        // 48.5 % left is 51.5 % right: 52 with bit 7 ("right") set.
        #expect(values?["left_right_balance"]?.arrayValue?.dropFirst().allSatisfy { $0 == .number(Double(0x80 | 52)) } == true)
        #expect(values?["speed"]?.arrayValue?.last == 8.25)
        #expect(values?["heart_rate"]?.arrayValue?.allSatisfy { $0 == .null } == true)
    }

    @Test func pausedAndEndedWhilePaused() throws {
        let workout = try Self.workout(seconds: 200, pauses: [50..<80, 150..<200]) { _ in [(.heartRate, 140), (.cyclingPower, 200)] }
        #expect(workout.pauses.count == 2)
        let decoded = try Self.check(workout)
        let events = decoded["events"]?.arrayValue?.compactMap { $0.arrayValue?[2].stringValue }
        #expect(events == ["start", "stop", "start", "stop", "stop_all"])
    }

    @Test func noZonesConfigured() throws {
        let workout = try Self.workout(seconds: 120, zones: ZonePreferences()) { _ in [(.heartRate, 140), (.cyclingPower, 200)] }
        #expect(workout.zoneGroupsByType.isEmpty)
        let decoded = try Self.check(workout, profile: nil)
        #expect(decoded["timeInZone"]?.arrayValue?.isEmpty == true)
    }

    @Test func emptyWorkout() throws {
        let workout = try Self.workout(seconds: 0) { _ in [] }
        let decoded = try Self.check(workout)
        #expect(decoded["records"] == 0)
        #expect(decoded["laps"]?.arrayValue?.count == 1)
    }
}

/// Runs scripts/fit-check.py in the virtual environment scripts/install-deps makes.
enum FITCheck {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
    static let python = root.appendingPathComponent(".build/venv/bin/python").path
    static let script = root.appendingPathComponent("scripts/fit-check.py").path

    static let unavailableReason: String? = {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return "\(python) is missing: run scripts/install-deps (it installs garmin-fit-sdk into .build/venv)"
        }
        guard (try? run(["-c", "import garmin_fit_sdk"])) != nil else {
            return "garmin-fit-sdk is not installed in .build/venv: run scripts/install-deps"
        }
        return nil
    }()

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Decodes `bytes` and returns the checker's JSON summary.
    static func decode(_ bytes: [UInt8]) throws -> JSONValue {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString).fit")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try JSONValue(parsing: try run([script, file.path]))
    }

    /// Runs the venv's python with `arguments`, at most 60 s; returns its output.
    static func run(_ arguments: [String]) throws -> String {
        let (status, output) = try ExternalTool.run(python, arguments, timeout: .seconds(60))
        guard let status else { throw Failure(description: "fit-check.py did not finish within 60 s") }
        guard status == 0 else { throw Failure(description: "fit-check.py exited with \(status): \(output)") }
        return output
    }
}
