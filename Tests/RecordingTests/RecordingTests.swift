import Foundation
import Recording
import SensorCore
import Testing
import WorkoutStore
import Workouts
import Zones

/// A recording from its typed plan to the store, with no command line: what begins, what is
/// stored, and what is not.
@Suite struct RecordingTests {
    static let heartZones = try! WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [110, 120, 130, 140])

    /// A store in a temporary folder, removed with it.
    final class TemporaryStore {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("recording-\(UUID().uuidString)")
        let store: WorkoutStore

        init() throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            store = try WorkoutStore(path: folder.appendingPathComponent("workouts.sqlite").path)
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        func saving(keepsEmpty: Bool = false) -> RecordingPlan.Saving {
            RecordingPlan.Saving(store: store, journalPath: store.path, keepsEmpty: keepsEmpty)
        }
    }

    /// Runs `plan` over `seconds` of heart rate at 125 bpm (none for 0) and finishes it.
    static func record(_ plan: RecordingPlan, seconds: Int) throws -> (Recording.Outcome, Workout) {
        var recording = try Recording(plan)
        let (builder, recorder) = try recording.begin(
            start: Date(timeIntervalSince1970: 1_790_000_000), day: nil, sensors: [SensorID(1): "hr"])
        builder.add((0..<seconds).map { Sample(sensor: SensorID(1), type: .heartRate, value: 125, time: .seconds($0)) })
        try builder.endCollection(at: .seconds(max(seconds, 1)))
        let workout = try Recording.workout(.success(try builder.finishWorkout()), recorder: recorder)
        return (try recording.finish(workout, recorder: recorder), workout)
    }

    @Test func aPlanThatSavesStoresTheWorkoutWithItsBridgeZonesAndTargets() throws {
        let temporary = try TemporaryStore()
        let target = WorkoutTarget(quantityType: .heartRate, zones: 1...2)
        let plan = RecordingPlan(
            activities: ActivityPlan([.running]), customZones: [Self.heartZones], targets: [target],
            bridge: BridgeID(rawValue: "garage")!, saving: temporary.saving())
        let (outcome, workout) = try Self.record(plan, seconds: 30)
        let id = try #require(outcome.savedID)
        let stored = try temporary.store.workout(id)
        #expect(stored.activityType == .running && stored.targets == [target])
        #expect(stored.zoneGroupsByType[.heartRate]?.durations == workout.zoneGroupsByType[.heartRate]?.durations)
        #expect(try temporary.store.workouts().map(\.identity.bridge) == [BridgeID(rawValue: "garage")!])
        #expect(try temporary.store.unfinishedWorkouts().isEmpty)
    }

    @Test func anEmptyWorkoutIsNotStoredUnlessThePlanKeepsIt() throws {
        let temporary = try TemporaryStore()
        let (empty, _) = try Self.record(RecordingPlan(saving: temporary.saving()), seconds: 0)
        guard case .empty = empty else { Issue.record("\(empty)"); return }
        #expect(try temporary.store.workouts().isEmpty && temporary.store.unfinishedWorkouts().isEmpty)
        let (kept, _) = try Self.record(RecordingPlan(saving: temporary.saving(keepsEmpty: true)), seconds: 0)
        let count = try temporary.store.workouts().count
        #expect(kept.savedID != nil && count == 1)
    }

    @Test func aPlanWithoutSavingStoresNothing() throws {
        let (outcome, workout) = try Self.record(RecordingPlan(customZones: [Self.heartZones]), seconds: 10)
        guard case .unsaved = outcome else { Issue.record("\(outcome)"); return }
        #expect(workout.samples.count == 10)
    }

    @Test func targetsTheZonesCannotJudgeAreRefusedBeforeAnythingBegins() throws {
        let temporary = try TemporaryStore()
        let beyond = WorkoutTarget(quantityType: .heartRate, zones: 4...5)
        var recording = try Recording(RecordingPlan(customZones: [Self.heartZones], targets: [beyond], saving: temporary.saving()))
        #expect(throws: RecordingError.targetOutsideZones(beyond, zoneCount: 5)) {
            _ = try recording.begin(start: Date(), day: nil, sensors: [:])
        }
        let power = WorkoutTarget(quantityType: .cyclingPower, zones: 1...1)
        var withoutZones = try Recording(RecordingPlan(targets: [power], saving: temporary.saving()))
        #expect(throws: RecordingError.targetWithoutZones(power)) {
            _ = try withoutZones.begin(start: Date(), day: nil, sensors: [:])
        }
        // Nothing was journaled.
        #expect(try temporary.store.workouts().isEmpty && temporary.store.unfinishedWorkouts().isEmpty)
    }

    @Test func autoPauseFollowsThePlanOrTheRule() throws {
        var byRule = try Recording(RecordingPlan(activities: ActivityPlan([.cycling])))
        byRule.applyAutoPause(movementSensors: true)
        #expect(byRule.machine.autoPause == .seconds(3))
        byRule.applyAutoPause(movementSensors: false)
        #expect(byRule.machine.autoPause == nil)
        var running = try Recording(RecordingPlan(activities: ActivityPlan([.running])))
        running.applyAutoPause(movementSensors: true)
        #expect(running.machine.autoPause == nil)
        var off = try Recording(RecordingPlan(activities: ActivityPlan([.cycling]), autoPause: .off))
        off.applyAutoPause(movementSensors: true)
        #expect(off.machine.autoPause == nil)
        var multisport = try Recording(RecordingPlan(activities: ActivityPlan([.cycling, .running])))
        multisport.applyAutoPause(movementSensors: true)
        #expect(multisport.machine.autoPause == nil)
        var given = try Recording(RecordingPlan(activities: ActivityPlan([.running]), autoPause: .after(.seconds(5))))
        given.applyAutoPause(movementSensors: false)
        #expect(given.machine.autoPause == .seconds(5))
    }
}
