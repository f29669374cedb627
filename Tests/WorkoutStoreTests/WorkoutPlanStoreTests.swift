import Foundation
import SensorCore
import SensorTestSupport
import Testing
import Workouts
@testable import WorkoutStore
import Zones

/// A workout ridden to a plan (migration 16): the plan, its steps' time in target and the laps a
/// step ended are kept, on both backends, across a copy and a recovery from the journal.
@Suite struct WorkoutPlanStoreTests {
    static let plan = WorkoutPlan(
        name: "Over-unders", entries: [
            .step(PlanStep(name: "Warm-up", length: .time(.seconds(120)), target: .rampOfFTP(from: 0.5, to: 0.75))),
            .repeated(count: 2, steps: [
                PlanStep(length: .time(.seconds(60)), target: .powerOfFTP(0.95...1.05), cadence: 85...95),
                PlanStep(length: .time(.seconds(60)), target: .heartRateZones(2...2)),
            ]),
            .step(PlanStep(length: .open)),
        ])

    /// 8 minutes at 200 to 260 W for FTP 250, ridden to the plan; the lap key ends the open step at 7 min.
    static func ride() throws -> Workout {
        let profile = AthleteProfile(age: 40, restingHeartRate: 50, functionalThresholdPower: 250)
        var machine = WorkoutStateMachine(activityType: .cycling, preferences: ZonePreferences(profile: profile))
        machine.sensors = SyntheticRide.sensors
        machine.plan = plan
        let start = Duration.seconds(5)
        try machine.beginCollection(at: start, date: Date(timeIntervalSince1970: 1_795_935_600))
        for second in 0..<480 {
            let time = start + .seconds(second) + .milliseconds(300)
            if second == 420 { try machine.lap(at: time) }
            machine.add(Sample(sensor: SensorID(2), type: .cyclingPower, value: 200 + Double(second % 7) * 10, time: time))
            machine.add(Sample(sensor: SensorID(1), type: .heartRate, value: 125 + Double(second % 5), time: time))
        }
        try machine.endCollection(at: start + .seconds(480))
        return try machine.finishWorkout()
    }

    @Test(arguments: StoreBackend.available)
    func aPlannedRideIsKeptWithItsStepsAndCopied(_ backend: StoreBackend) throws {
        let workout = try Self.ride()
        #expect(workout.steps.count == 6 && workout.steps.allSatisfy { $0.lap == $0.step })
        #expect(workout.steps.map { $0.timeInTarget == nil } == [false, false, false, false, false, true])
        #expect(workout.laps.count == 7)
        let store = try backend.emptyStore()
        let id = try store.save(workout)
        let loaded = try store.workout(id)
        #expect(loaded == workout)
        #expect(loaded.events.filter { $0.kind == .lap }.map(\.cause) == [.step, .step, .step, .step, .step, .manual])

        let other = try StoreBackend.sqlite.emptyStore()
        let copied = try #require(try other.copyWorkout(id, from: store))
        #expect(try other.workout(copied) == workout)
        try store.deleteWorkout(id)
        #expect(try store.connection.statement("SELECT count(*) FROM workout_steps").firstRow { $0.int64(0) } == 0)
    }

    /// A recording cut short finds its plan again: the steps' laps come back from the journal's
    /// lap events, their time in target is judged again.
    @Test func aRecoveredRecordingKeepsItsPlan() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let full = try Self.ride()
        var recorder: WorkoutRecorder? = try WorkoutRecorder(
            path: path,
            start: RecordingStart(
                startDate: full.startDate, start: full.start, activityType: .cycling,
                zoneConfigurations: full.zoneGroupsByType.mapValues(\.configuration), sensors: full.sensors,
                profile: full.profile, plan: Self.plan),
            flushInterval: .zero)
        let cut = full.start + .seconds(200)
        recorder?.record(
            samples: full.samples.filter { $0.time <= cut }[...], events: full.events.filter { $0.time <= cut }[...],
            malformedNotifications: 0, droppedSamples: 0)
        let id = try #require(recorder?.workoutID)
        recorder = nil
        let store = try WorkoutStore(path: path)
        let recovered = try store.recoverWorkout(id)
        #expect(recovered.plan == Self.plan)
        // Warm-up (to 120 s), the first over (to 180 s), and the under begun.
        #expect(recovered.laps.map { ($0.lowerBound - full.start).seconds } == [0, 120, 180])
        #expect(Array(recovered.steps.prefix(2)) == Array(full.steps.prefix(2)))
        #expect(try store.workout(id) == recovered)
    }
}
