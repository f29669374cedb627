public import Foundation
public import SensorCore
public import Workouts
public import WorkoutStore
public import Zones

/// The JSON shape of a workout that `replay --json` and `workouts show --json` print.
/// Dates are instants with their UTC offset in the command's time zone (`TimeText`); durations and
/// event times are seconds (event times from the workout start).
/// `profile` is the profile the workout was recorded with, as `profile show --json` prints one.
public enum WorkoutJSON {
    /// One workout of `workouts list --json` and `GET /api/workouts`: its identity, state
    /// (finished, recording, or unfinished: interrupted), start in `timeZone` and figures.
    public static func listing(_ w: WorkoutListing, timeZone: TimeZone) -> JSONValue {
        func number(_ value: Double?) -> JSONValue { value.map(JSONValue.number) ?? .null }
        var object = JSONObject()
        object.append("id", .number(Double(w.id.rawValue)))
        object.append("uuid", .string(w.identity.uuidText))
        object.append("bridge", .string(w.identity.bridge.rawValue))
        object.append("athlete", w.identity.athlete.map { .string($0.rawValue) } ?? .null)
        object.append("state", .string(w.isFinished ? "finished" : w.recording != nil ? "recording" : "unfinished"))
        object.append("start", .string(iso(w.startDate, in: timeZone)))
        object.append("activityType", .string(w.activityType.rawValue))
        if let type = w.figuresOf { object.append("figuresOf", .string(type.rawValue)) }
        object.append("duration", number(w.duration?.seconds))
        object.append("activeDuration", number(w.activeDuration?.seconds))
        object.append("averageHeartRate", number(w.averageHeartRate))
        object.append("averagePower", number(w.averagePower))
        object.append("normalizedPower", number(w.normalizedPower))
        if let until = w.recordedUntil { object.append("recordedUntil", .number(until.seconds)) }
        if let recording = w.recording {
            object.append("recording", .bool(true))
            if let processID = recording.processID { object.append("recordingProcess", .number(Double(processID))) }
        }
        return .object(object)
    }

    /// `{"id": 12, "workout": {...}, "zoneUpdates": [...]}`: the id of a stored workout, the workout,
    /// and with `zoneUpdates` every change of the current zone.
    /// `profileNow` is the rider's profile now, for the load (`Workout.load(now:on:)`): of a workout
    /// stored before workouts kept their profile, and of one recorded without a threshold set since.
    /// `timeZone` is the zone whose offset the instants carry (`CommandContext.timeZone`).
    public static func object(
        _ workout: Workout, id: WorkoutID? = nil, identity: WorkoutIdentity? = nil, zoneUpdates: Bool,
        profileNow: WorkoutProfile? = nil, timeZone: TimeZone
    ) -> JSONValue {
        func iso(_ workout: Workout, _ time: Duration) -> String { Self.iso(workout, time, in: timeZone) }
        var w = JSONObject()
        w.append("start", .string(iso(workout, workout.start)))
        w.append("end", .string(iso(workout, workout.end)))
        w.append("duration", .number(workout.duration.seconds))
        w.append("activeDuration", .number(workout.activeDuration.seconds))
        w.append("activityType", .string(workout.activityType.rawValue))
        w.append("statistics", statistics(workout.statistics, dfaAlpha1: workout.dfaAlpha1()))
        w.append("zoneGroups", zoneGroups(workout.zoneGroupsByType))
        // Each activity with its own figures: statistics, time in zone and load.
        let summaries = workout.activitySummaries()
        let workoutLoad = workout.load(now: profileNow, on: CalendarDate(localDayOf: workout.startDate, in: timeZone), summaries: summaries)
        w.append(
            "activities",
            .array(
                workout.activities.enumerated().map { index, a in
                    var object: JSONObject = [
                        "activityType": .string(a.activityType.rawValue), "start": .string(iso(workout, a.start)),
                        "end": .string(iso(workout, a.end)), "zoneGroups": zoneGroups(a.zoneGroupsByType),
                    ]
                    if index < summaries.count, index < workoutLoad.activities.count {
                        object.append("activeDuration", .number(summaries[index].timerTime.seconds))
                        object.append("statistics", statistics(summaries[index].statistics))
                        object.append("load", load(workoutLoad.activities[index]))
                    }
                    return .object(object)
                }))
        w.append(
            "targets",
            .array(
                workout.timeInTargets().map { target, time, share in
                    .object([
                        "quantityType": .string(target.quantityType.identifier),
                        "lowestZoneIndex": .number(Double(target.zones.lowerBound)),
                        "highestZoneIndex": .number(Double(target.zones.upperBound)),
                        "timeInTarget": .number(time.seconds), "share": .number(share),
                    ])
                }))
        w.append("load", load(workoutLoad))
        w.append(
            "laps",
            .array(
                workout.lapSummaries().map { lap in
                    var object = JSONObject()
                    object.append("start", .number((lap.range.lowerBound - workout.start).seconds))
                    object.append("end", .number((lap.range.upperBound - workout.start).seconds))
                    object.append("activeDuration", .number(lap.timerTime.seconds))
                    object.append("statistics", statistics(lap.statistics))
                    object.append("zoneGroups", zoneGroups(lap.zoneGroups))
                    return .object(object)
                }))
        if let plan = workout.plan {
            w.append("plan", PlanText.json(plan, ftp: workout.profile?.athlete.functionalThresholdPower))
            w.append(
                "steps",
                .array(
                    workout.riddenSteps.map { step in
                        var object = JSONObject()
                        object.append("step", .number(Double(step.number)))
                        object.append("index", .number(Double(step.planned.index)))
                        object.append("lap", .number(Double(step.lap + 1)))
                        object.append("start", .number((step.span.lowerBound - workout.start).seconds))
                        object.append("end", .number((step.span.upperBound - workout.start).seconds))
                        object.append("activeDuration", .number(step.activeDuration.seconds))
                        object.append("timeInTarget", step.timeInTarget.map { .number($0.seconds) } ?? .null)
                        object.append("share", step.share.map(JSONValue.number) ?? .null)
                        return .object(object)
                    }))
        }
        w.append("events", .array(workout.events.map { event($0, workout) }))
        w.append("sensors", sensorStates(workout.sensorStates))
        // What the zones came from and what FIT exports carry; null for a workout saved before it was kept.
        w.append(
            "profile",
            workout.profile.map {
                ProfileJSON.profile($0.preferences)
            } ?? .null)
        var root = JSONObject()
        if let id { root.append("id", .number(Double(id.rawValue))) }
        if let identity {
            root.append("uuid", .string(identity.uuidText))
            root.append("bridge", .string(identity.bridge.rawValue))
            root.append("athlete", identity.athlete.map { .string($0.rawValue) } ?? .null)
        }
        root.append("workout", .object(w))
        if zoneUpdates {
            root.append(
                "zoneUpdates",
                .array(
                    workout.zoneUpdates.map { zoneUpdate($0, start: workout.start) }))
        }
        return .object(root)
    }

    /// A live zone update whole, as HealthKit's `HKLiveWorkoutZoneUpdate` carries it: the zone
    /// left and the zone entered with their durations so far, the running zone group, and the time
    /// of the latest sample processed (`lastSampleT`), times in seconds from `start`.
    public static func zoneUpdate(_ u: ZoneUpdate, start: Duration) -> JSONValue {
        func zone(_ duration: WorkoutZoneDuration?) -> JSONValue {
            guard let duration else { return .null }
            return .object(["index": .number(Double(duration.zone.index)), "duration": .number(duration.duration.seconds)])
        }
        return .object([
            "quantityType": .string(u.quantityType.identifier),
            "t": .number((u.time - start).seconds),
            "previous": u.previousZoneIndex.map { .number(Double($0)) } ?? .null,
            "current": u.currentZoneIndex.map { .number(Double($0)) } ?? .null,
            "previousZone": zone(u.previous),
            "currentZone": zone(u.current),
            "zoneGroup": u.zoneGroup.jsonValue,
            "lastSampleT": .number((u.lastSampleTime - start).seconds),
        ])
    }

    /// `{"hr": {"notifying": 3590.5, "noContact": 30}, ...}`: seconds in each state by sensor.
    public static func sensorStates(_ states: [String: [SensorState: Duration]]) -> JSONValue {
        var object = JSONObject()
        for (sensor, durations) in states.sorted(by: { $0.key < $1.key }) {
            var entry = JSONObject()
            for state in SensorState.allCases { if let d = durations[state] { entry.append(state.rawValue, .number(d.seconds)) } }
            object.append(sensor, .object(entry))
        }
        return .object(object)
    }

    /// The instant of the workout's `time`, with its offset in `zone`.
    public static func iso(_ workout: Workout, _ time: Duration, in zone: TimeZone) -> String {
        TimeText.instant(workout.startDate + (time - workout.start).seconds, in: zone)
    }

    public static func zoneGroups(_ groups: [QuantityType: WorkoutZoneGroup]) -> JSONValue {
        var object = JSONObject()
        for type in WorkoutStateMachine.zonedTypes {
            if let group = groups[type] { object.append(type.identifier, group.jsonValue) }
        }
        return .object(object)
    }

    public static func event(_ e: WorkoutEvent, _ workout: Workout) -> JSONValue {
        event(e, start: workout.start)
    }

    /// An event as the workout's `events` hold it, `t` in seconds from `start` (a live event, before
    /// the workout is finished: MQTT).
    public static func event(_ e: WorkoutEvent, start: Duration) -> JSONValue {
        var object: JSONObject = ["type": .string(e.name), "t": .number((e.time - start).seconds)]
        switch e.kind {
        case .activity(let type): object.append("activityType", .string(type.rawValue))
        case .sensorLost(let sensor), .sensorRegained(let sensor): object.append("device", .string(sensor))
        case .sensorState(let sensor, let state):
            object.append("device", .string(sensor))
            object.append("state", .string(state.rawValue))
        case .pause, .resume, .lap: object.append("cause", .string(e.cause.rawValue))
        }
        return .object(object)
    }

    /// `{"normalizedPower":212,"functionalThresholdPower":250,"intensityFactor":0.848,
    /// "trainingStressScore":87.1,"heartRateStressScore":80.2,"trimp":143,"intensity":"hard",
    /// "stressScore":87.1,"thresholdsSetLater":null}`, null for what the workout and its profile do
    /// not give. `stressScore` is the load that counts (TSS, else hrTSS; for several activities the
    /// sum of theirs). `thresholdsSetLater` names the FTP and LTHR set after the workout that the
    /// load borrowed because the profile it was recorded with had none
    /// (`{"lactateThresholdHeartRate":165}`).
    public static func load(_ load: WorkoutLoad) -> JSONValue {
        func number(_ value: Double?) -> JSONValue { value.map(JSONValue.number) ?? .null }
        var object = JSONObject()
        object.append("normalizedPower", number(load.normalizedPower))
        object.append("functionalThresholdPower", number(load.functionalThresholdPower.map(Double.init)))
        object.append("intensityFactor", number(load.intensityFactor))
        object.append("trainingStressScore", number(load.trainingStressScore))
        object.append("heartRateStressScore", number(load.heartRateStressScore))
        object.append("trimp", number(load.trimp))
        object.append("intensity", load.intensity.map { .string($0.rawValue) } ?? .null)
        object.append("stressScore", number(load.stressScore))
        let later = load.thresholdsSetLater
        var borrowed = JSONObject()
        if let ftp = later.functionalThresholdPower { borrowed.append("functionalThresholdPower", .number(Double(ftp))) }
        if let lthr = later.lactateThresholdHeartRate { borrowed.append("lactateThresholdHeartRate", .number(Double(lthr))) }
        object.append("thresholdsSetLater", later.isEmpty ? .null : .object(borrowed))
        return .object(object)
    }

    /// A workout's statistics with its DFA α1 (`dfaAlpha1(_:)`), when it has RR intervals.
    public static func statistics(_ s: WorkoutStatistics, dfaAlpha1 series: DFAAlpha1Series) -> JSONValue {
        guard series.intervalCount > 0, case .object(var object) = statistics(s) else { return statistics(s) }
        object.append("dfaAlpha1", dfaAlpha1(series))
        return .object(object)
    }

    /// `{"mean", "windows", "refusedWindows", "thresholds", "series"}`: the mean α1 over the windows
    /// that gave one (null for none), their count, the windows refused (too few beats, 5 % of
    /// artefacts or more), HRVT1 and HRVT2 (`DFAThresholds`: heart rate and power, null where α1
    /// did not cross), and each window's seconds from the start, α1, and heart rate and power held then.
    public static func dfaAlpha1(_ series: DFAAlpha1Series) -> JSONValue {
        func number(_ value: Double?) -> JSONValue { value.map(JSONValue.number) ?? .null }
        let thresholds = series.thresholds
        var object = JSONObject()
        object.append("mean", number(series.mean))
        object.append("windows", .number(Double(series.points.count)))
        object.append("refusedWindows", .number(Double(series.refusedWindows)))
        object.append(
            "thresholds",
            .object([
                "hrvt1": .object([
                    "alpha1": .number(DFAThresholds.first), "heartRate": number(thresholds.heartRate1),
                    "power": number(thresholds.power1),
                ]),
                "hrvt2": .object([
                    "alpha1": .number(DFAThresholds.second), "heartRate": number(thresholds.heartRate2),
                    "power": number(thresholds.power2),
                ]),
            ]))
        object.append(
            "series",
            .array(
                series.points.map { point in
                    .object([
                        "offset": .number(point.offset), "alpha1": .number(point.alpha1), "heartRate": number(point.heartRate),
                        "power": number(point.power),
                    ])
                }))
        return .object(object)
    }

    public static func statistics(_ s: WorkoutStatistics) -> JSONValue {
        var object = JSONObject()
        if let hr = s.heartRate {
            object.append(
                "heartRate",
                .object([
                    "average": .number(hr.average), "minimum": .number(hr.minimum), "maximum": .number(hr.maximum),
                    "count": .number(Double(hr.count)),
                ]))
        }
        if let p = s.cyclingPower {
            object.append(
                "cyclingPower",
                .object([
                    "average": .number(p.average), "maximum": .number(p.maximum),
                    "normalized": p.normalized.map(JSONValue.number) ?? .null, "energy": .number(p.energy),
                    "count": .number(Double(p.count)),
                ]))
        }
        if let c = s.cadence {
            object.append(
                "cadence",
                .object(["average": .number(c.average), "maximum": .number(c.maximum), "count": .number(Double(c.count))]))
        }
        if let energy = s.energyExpended { object.append("energyExpended", .number(energy)) }
        if let rmssd = s.rmssd {
            object.append("rmssd", .number(rmssd))
            object.append("rrPairs", .number(Double(s.rrPairCount)))
        }
        if let share = s.rrArtefactShare {
            object.append("rrIntervals", .number(Double(s.rrIntervalCount)))
            object.append("rrArtefacts", .number(Double(s.rrArtefactCount)))
            object.append("rrArtefactShare", .number(share))
        }
        object.append("droppedSamples", .number(Double(s.droppedSamples)))
        object.append("malformedNotifications", .number(Double(s.malformedNotifications)))
        return .object(object)
    }

    /// `2026-11-02T12:30:00.000-05:00` (`...17:30:00.000Z` in UTC, as `ISO8601DateFormatter` with
    /// fractional seconds writes it): `date` in `zone` with its offset, milliseconds always
    /// (`TimeText`), without making a formatter per call (ICU's took about 0.1 ms each, 95 % of
    /// `workouts list --json` over 1,000 workouts).
    public static func iso(_ date: Date, in zone: TimeZone) -> String {
        TimeText.instant(date, in: zone, alwaysMilliseconds: true)
    }
}
