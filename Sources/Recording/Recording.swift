public import Foundation
public import SensorCore
public import Workouts
public import WorkoutStore
public import Zones

/// Why a recording cannot begin as planned.
public enum RecordingError: Error, Sendable, Equatable {
    /// A target of a quantity the workout has no zones for.
    case targetWithoutZones(WorkoutTarget)
    /// A target past the last of the workout's `zoneCount` zones.
    case targetOutsideZones(WorkoutTarget, zoneCount: Int)
    /// The plan's steps ask for % of FTP, and the profile has no FTP.
    case planWithoutFTP
    /// Step `step` (from 1, of the plan's sequence) asks for zones of a quantity the workout has none of.
    case planStepWithoutZones(step: Int, QuantityType)
    /// Step `step` asks for zones (from 1) past the last of the workout's `zoneCount`.
    case planStepOutsideZones(step: Int, QuantityType, zones: ClosedRange<Int>, zoneCount: Int)
}

/// One recording, from its plan to the stored workout: the state machine the plan makes, the
/// beginning (the builder collecting, and the journal when saving) and the end (stored, not stored
/// for holding no value, or what was kept when the store refused it). Outcomes are returned, never
/// printed: `record`, `replay` and `serve` say them in their own words.
public struct Recording {
    public let plan: RecordingPlan
    /// The workout's rules: zones, targets, auto-pause and auto-lap; the builder's from `begin`.
    public private(set) var machine: WorkoutStateMachine

    public init(_ plan: RecordingPlan) throws(WorkoutBuilderError) {
        self.plan = plan
        machine = WorkoutStateMachine(activityType: plan.activity, preferences: plan.preferences)
        for configuration in plan.customZones { try machine.setCustomZoneConfiguration(configuration) }
        machine.targets = plan.targets
        machine.plan = plan.workoutPlan
        machine.autoLap = plan.autoLap
        switch plan.autoPause {
        case .byDefault: break
        case .off: machine.autoPause = nil
        case .after(let stillness): machine.autoPause = stillness
        }
    }

    /// Auto-pause by the rule when the plan leaves it to it: on (3 s) for a cycling workout that
    /// `movementSensors` record (a power meter, cadence or speed sensor), else off; off for a
    /// multisport workout, whose run would pause for a power meter left still.
    public mutating func applyAutoPause(movementSensors: Bool) {
        guard plan.autoPause == .byDefault else { return }
        machine.autoPause = movementSensors && !plan.activities.isMultisport && plan.activity == .cycling ? .seconds(3) : nil
    }

    /// The workout's zones, heart rate first; none for a quantity without a configuration.
    public var zoneConfigurations: [WorkoutZoneConfiguration] {
        WorkoutStateMachine.zonedTypes.compactMap(machine.zoneConfiguration(for:))
    }

    /// Checks the targets against the zones of `day` (system zones depend on it: an age from a
    /// birth date), then begins: the builder collecting from t = 0 at `start`, and when saving the
    /// journal (`RecordingPlan.Saving.journalPath`).
    public mutating func begin(start: Date, day: CalendarDate?, sensors: [SensorID: String]) throws
        -> (builder: LiveWorkoutBuilder, recorder: WorkoutRecorder?)
    {
        machine.zonesDate = day
        for target in machine.targets {
            guard let zones = machine.zoneConfiguration(for: target.quantityType)?.zones.count else {
                throw RecordingError.targetWithoutZones(target)
            }
            guard target.zones.upperBound < zones else { throw RecordingError.targetOutsideZones(target, zoneCount: zones) }
        }
        if let workoutPlan = plan.workoutPlan { try Self.check(workoutPlan, machine) }
        machine.sensors = sensors
        let recorder = try plan.saving.map { saving in
            try WorkoutRecorder(
                path: saving.journalPath,
                start: RecordingStart(
                    startDate: start, start: .zero, activityType: plan.activity,
                    zoneConfigurations: Dictionary(uniqueKeysWithValues: zoneConfigurations.map { ($0.quantityType, $0) }),
                    sensors: sensors, profile: WorkoutProfile(machine.preferences), targets: machine.targets,
                    plan: plan.workoutPlan, bridge: plan.bridge, athlete: plan.athlete?.name))
        }
        let builder = LiveWorkoutBuilder(machine)
        try builder.beginCollection(at: .zero, date: start)
        return (builder, recorder)
    }

    /// Every step of `workoutPlan` can be judged: an FTP for % of FTP, zones for zone targets.
    static func check(_ workoutPlan: WorkoutPlan, _ machine: WorkoutStateMachine) throws(RecordingError) {
        let ftp = machine.preferences.profile.functionalThresholdPower
        for (number, planned) in zip(1..., workoutPlan.sequence) {
            if planned.step.target.isRelativeToFTP, ftp == nil { throw .planWithoutFTP }
            let zoned: (QuantityType, ClosedRange<Int>)? =
                switch planned.step.target {
                case .powerZones(let zones): (.cyclingPower, zones)
                case .heartRateZones(let zones): (.heartRate, zones)
                default: nil
                }
            guard let (type, zones) = zoned else { continue }
            guard let count = machine.zoneConfiguration(for: type)?.zones.count else { throw .planStepWithoutZones(step: number, type) }
            guard zones.upperBound <= count else { throw .planStepOutsideZones(step: number, type, zones: zones, zoneCount: count) }
        }
    }

    /// How a finished recording ended.
    public enum Outcome {
        /// The plan did not save it.
        case unsaved
        /// No value counted (no sensor connected, a strap without skin contact): not stored, and
        /// its journal discarded, unless the plan keeps empty workouts.
        case empty
        /// Stored as this workout.
        case saved(WorkoutID)
        /// The store did not take it.
        case failed(SaveFailure)

        /// The stored workout's id, when stored.
        public var savedID: WorkoutID? {
            if case .saved(let id) = self { return id }
            return nil
        }
    }

    /// What was kept of a workout the store did not take.
    public enum SaveFailure {
        /// The store refused the finished workout (a full disk): its journal holds it up to
        /// `savedUntil`, for `workouts recover`.
        case notStored(WorkoutStoreError, workoutID: WorkoutID, journalPath: String, savedUntil: Duration)
        /// Stored as `workoutID` in this box's own store (the journal), not copied to the shared one.
        case notCopied(WorkoutStoreError, workoutID: WorkoutID, journalPath: String)
    }

    /// Whether `workout` is left unstored for holding no value at all.
    public func isEmpty(_ workout: Workout) -> Bool {
        workout.samples.isEmpty && !(plan.saving?.keepsEmpty ?? false)
    }

    /// Ends the recording of `workout`: stores it through `recorder` (and copies it to a shared
    /// store), or discards an empty one's journal.
    public func finish(_ workout: Workout, recorder: WorkoutRecorder?) throws(WorkoutStoreError) -> Outcome {
        guard let recorder, let saving = plan.saving else { return .unsaved }
        if isEmpty(workout) {
            try recorder.discard()
            return .empty
        }
        let id: WorkoutID
        do {
            id = try recorder.finish(workout)
        } catch {
            // As much of the journal as still fits, for recovery.
            try? recorder.flush()
            return .failed(.notStored(error, workoutID: recorder.workoutID, journalPath: recorder.path, savedUntil: recorder.savedUntil))
        }
        guard saving.store.isShared else { return .saved(id) }
        do throws(WorkoutStoreError) {
            // Copied, or there already (a copy that was cut off, finished by `sync`).
            if let copied = try saving.store.copyWorkout(id, from: try WorkoutStore(path: recorder.path)) { return .saved(copied) }
            guard let there = try saving.store.workoutID(uuid: recorder.identity.uuid) else {
                throw WorkoutStoreError.uuidNotFound(recorder.identity.uuid)
            }
            return .saved(there)
        } catch {
            return .failed(.notCopied(error, workoutID: id, journalPath: recorder.path))
        }
    }

    /// The finished workout of `result`, or its error after discarding what `recorder` journaled.
    public static func workout(_ result: Result<Workout, WorkoutBuilderError>, recorder: WorkoutRecorder?) throws(WorkoutBuilderError)
        -> Workout
    {
        do {
            return try result.get()
        } catch {
            try? recorder?.discard()
            throw error
        }
    }
}
