import Foundation
import SensorCore
public import Workouts
import Zones

extension WorkoutStore {
    /// Workouts whose recording has not been finished: interrupted ones (the process is gone) and,
    /// marked `isRecording`, ones a running process is recording. In order of their start.
    public func unfinishedWorkouts() throws(WorkoutStoreError) -> [UnfinishedWorkout] {
        let rows = try perform {
            var rows: [(id: WorkoutID, date: Date, type: String, until: Int64)] = []
            try connection.statement(
                """
                SELECT w.id, w.start_date, w.activity_type, r.recorded_until_ns
                FROM workouts w JOIN recordings r ON r.workout_id = w.id ORDER BY w.start_date, w.id
                """
            ).forEachRow {
                rows.append((WorkoutID($0.int64(0)), Date(timeIntervalSinceReferenceDate: $0.double(1)), $0.text(2), $0.int64(3)))
            }
            return rows
        }
        return try rows.map { (row) throws(WorkoutStoreError) in
            UnfinishedWorkout(
                id: row.id, startDate: row.date, activityType: try perform { try activityType(row.type) },
                recordedUntil: .nanoseconds(row.until),
                isRecording: recordingLockPath(row.id).map(RecordingLock.isHeld(at:)) ?? false)
        }
    }

    /// Finishes an interrupted workout from what its journal saved, and stores it in place of the
    /// journal (same id); returns it.
    ///
    /// The journaled samples and events go through a new `WorkoutStateMachine` with the zones and
    /// holds the recording used, so statistics, laps, activities and zone groups are computed as
    /// the live builder computes them: the zone groups are the re-bucketing of the saved samples
    /// with the recording's timeline and holds. The workout keeps the profile the recording began with. The workout ends at the latest sample or event
    /// saved. Events come before samples stamped at the same instant.
    ///
    /// - Throws: `.notFound`, `.alreadyFinished`, `.recordingInProgress` while a running process records it.
    @discardableResult
    public func recoverWorkout(_ id: WorkoutID) throws(WorkoutStoreError) -> Workout {
        if let lockPath = recordingLockPath(id), RecordingLock.isHeld(at: lockPath) { throw .recordingInProgress(id) }
        let workout = try performTransaction {
            let row = try connection.statement(
                """
                SELECT w.start_date, w.anchor_offset_ns, w.activity_type, w.heart_rate_hold_ns, w.power_hold_ns,
                    w.duration_ns IS NULL, r.recorded_until_ns, r.malformed_notifications, r.dropped_samples
                FROM workouts w LEFT JOIN recordings r ON r.workout_id = w.id WHERE w.id = ?
                """
            ).firstRow(id.rawValue) { row in
                (
                    date: Date(timeIntervalSinceReferenceDate: row.double(0)), start: Duration.nanoseconds(row.int64(1)),
                    activity: row.text(2),
                    holds: [QuantityType.heartRate: Duration.nanoseconds(row.int64(3)), .cyclingPower: .nanoseconds(row.int64(4))],
                    unfinished: row.int64(5) != 0, until: row.optionalInt64(6), malformed: row.int(7), dropped: row.int(8)
                )
            }
            guard let row else { throw WorkoutStoreError.notFound(id) }
            guard row.unfinished, let until = row.until else { throw WorkoutStoreError.alreadyFinished(id) }

            var configurationIDs: [Int64] = []
            try connection.statement("SELECT configuration_id FROM recording_zone_configurations WHERE workout_id = ?")
                .forEachRow(id.rawValue) { configurationIDs.append($0.int64(0)) }
            var configurations: [QuantityType: WorkoutZoneConfiguration] = [:]
            for configurationID in configurationIDs {
                let configuration = try configuration(id: configurationID)
                configurations[configuration.quantityType] = configuration
            }
            let sensors = try sensors(of: id.rawValue)
            let profile = try profile(of: id.rawValue)
            let events = try events(of: id.rawValue, start: row.start)
            let samples = try SampleChunk.samples(of: id.rawValue, start: row.start, in: connection, path: path)

            var machine = WorkoutStateMachine(
                activityType: try activityType(row.activity), maximumHolds: row.holds, zoneConfigurations: configurations)
            machine.sensors = sensors
            try machine.beginCollection(at: row.start, date: row.date)
            var nextEvent = 0
            for sample in samples {
                while nextEvent < events.count, events[nextEvent].time <= sample.time {
                    Self.apply(events[nextEvent], to: &machine)
                    nextEvent += 1
                }
                machine.add(sample)
            }
            for event in events[nextEvent...] { Self.apply(event, to: &machine) }
            try machine.endCollection(at: row.start + .nanoseconds(until))
            machine.count(malformed: row.malformed, dropped: row.dropped)
            var workout = try machine.finishWorkout()
            // The recording's profile, not the empty one of this machine (nil when the recording
            // was begun by a build from before migration 5, or without one).
            workout.profile = profile
            workout.targets = try targets(of: id.rawValue)
            // The steps' laps came back with the journal's lap events; their results are judged
            // again with the recording's profile.
            workout.plan = try plan(of: id.rawValue)
            if let plan = workout.plan { workout.steps = workout.stepResults(of: plan) }

            let identity = try self.identity(of: id)
            try connection.statement("DELETE FROM workouts WHERE id = ?").run(id.rawValue)
            _ = try insert(workout, maximumHolds: row.holds, id: id, identity: identity)
            return workout
        }
        if let lockPath = recordingLockPath(id) { RecordingLock.remove(at: lockPath) }
        return workout
    }

    /// Feeds a journaled event to the state machine; one it refuses is skipped, as live.
    private static func apply(_ event: WorkoutEvent, to machine: inout WorkoutStateMachine) {
        func sensor(named name: String) -> SensorID {
            if let known = machine.sensors.first(where: { $0.value == name }) { return known.key }
            // A sensor the session had no name for was named by its id (`sensor#3`).
            if name.hasPrefix("sensor#"), let raw = UInt16(name.dropFirst(7)), machine.sensors[SensorID(raw)] == nil {
                return SensorID(raw)
            }
            let unused = (0...UInt16.max).lazy.map(SensorID.init(rawValue:)).first { machine.sensors[$0] == nil }!
            machine.sensors[unused] = name
            return unused
        }
        switch event.kind {
        case .pause: try? machine.pause(at: event.time, cause: event.cause)
        case .resume: try? machine.resume(at: event.time, cause: event.cause)
        case .lap: try? machine.lap(at: event.time, cause: event.cause)
        case .activity(let type): try? machine.beginActivity(type, at: event.time)
        case .sensorLost(let name): machine.sensorLost(sensor(named: name), at: event.time)
        case .sensorRegained(let name): machine.sensorRegained(sensor(named: name), at: event.time)
        // Stale and notifying again follow from the samples' times; no contact and invalid values
        // were the decoder's word, journaled as events.
        case .sensorState(let name, let state):
            if state == .noContact || state == .invalid { machine.sensorValues(sensor(named: name), state, at: event.time) }
        }
    }
}
