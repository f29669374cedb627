import Foundation
import SensorCore
import Testing
import Workouts
import Zones

func hr(_ value: Double, at seconds: Double) -> Sample {
    Sample(sensor: SensorID(1), type: .heartRate, value: value, time: .milliseconds(Int64(seconds * 1000)))
}

func watts(_ value: Double, at seconds: Double) -> Sample {
    Sample(sensor: SensorID(2), type: .cyclingPower, value: value, time: .milliseconds(Int64(seconds * 1000)))
}

func s(_ seconds: Double) -> Duration { .milliseconds(Int64(seconds * 1000)) }

@Suite struct WorkoutStateMachineTests {
    static let date = Date(timeIntervalSince1970: 1_795_935_600)

    func started(hrZones: [Double] = [120, 140, 160], activity: WorkoutActivityType = .cycling) throws -> WorkoutStateMachine {
        var m = WorkoutStateMachine(activityType: activity)
        try m.setCustomZoneConfiguration(WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: hrZones))
        try m.beginCollection(at: .zero, date: Self.date)
        return m
    }

    /// Power stops; heart rate goes on without a tick in between (as in one batch of a busy
    /// consumer): power's drop to no zone, dated at its hold's end, comes before the heart-rate
    /// change after it, as it does with a tick between them.
    @Test func zoneUpdatesComeInTimeOrderHoweverTheSamplesAreBatched() throws {
        func run(tickingBetween: Bool) throws -> [ZoneUpdate] {
            var m = WorkoutStateMachine(activityType: .cycling)
            try m.setCustomZoneConfiguration(WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [120, 140, 160]))
            try m.setCustomZoneConfiguration(WorkoutZoneConfiguration(quantityType: .cyclingPower, boundaryValues: [150, 200]))
            try m.beginCollection(at: .zero, date: Self.date)
            m.add(hr(100, at: 0))
            m.add(watts(180, at: 0))  // power's hold (3 s) ends at 3
            if tickingBetween { m.tick(at: s(3.5)) }
            m.add(hr(150, at: 4))  // z2 from 4
            try m.endCollection(at: s(6))
            return try m.finishWorkout().zoneUpdates
        }
        let batched = try run(tickingBetween: false)
        #expect(batched.map(\.quantityType) == [.heartRate, .cyclingPower, .cyclingPower, .heartRate])
        #expect(batched.map(\.time) == [s(0), s(0), s(3), s(4)])
        #expect(batched == (try run(tickingBetween: true)))
    }

    /// A hand-worked workout with a pause and a dropout. Zones: z0 < 120 <= z1 < 140 <= z2 < 160 <= z3;
    /// heart-rate hold 5 s.
    @Test func handWorkedWorkoutWithPauseAndDropout() throws {
        var m = try started()
        m.add(hr(100, at: 0))  // z0 from 0
        m.add(hr(125, at: 1))  // z1 from 1: z0 got [0, 1) = 1 s
        m.add(hr(125, at: 2))  // still z1
        m.add(hr(145, at: 3))  // z2 from 3: z1 got [1, 3) = 2 s
        try m.pause(at: s(4))  // z2 got [3, 4) = 1 s; the clock stops
        m.add(hr(170, at: 5))  // z3 while paused: counts for nothing yet; its hold runs to 5 + 5 = 10
        try m.resume(at: s(6))  // z3 gets [6, 10) = 4 s, what is left of the hold after the resume
        m.add(hr(130, at: 12))  // the dropout [10, 12) is in no zone; z1 again from 12
        try m.endCollection(at: s(14))  // z1 gets [12, 14) = 2 s more: 4 s in all
        let workout = try m.finishWorkout()

        let group = try #require(workout.zoneGroupsByType[.heartRate])
        #expect(group.durations == [s(1), s(4), s(1), s(4)])
        // Active time is 14 s less the 2 s pause = 12 s; the zones hold 10 s of it (2 s dropout).
        #expect(workout.activeDuration == s(12))
        #expect(group.totalDuration == s(10))
        #expect(workout.pauses == [s(4)..<s(6)])
        // One update per change of the current zone, the dropout included (dated at the hold's end).
        #expect(
            workout.zoneUpdates.map { [$0.previousZoneIndex, $0.currentZoneIndex] }
                == [[nil, 0], [0, 1], [1, 2], [2, 3], [3, nil], [nil, 1]])
        #expect(workout.zoneUpdates.map(\.time) == [s(0), s(1), s(3), s(5), s(10), s(12)])
        // Statistics count only samples received while active: 100, 125, 125, 145, 130.
        let stats = try #require(workout.statistics.heartRate)
        #expect(stats.average == 125)
        #expect(stats.minimum == 100)
        #expect(stats.maximum == 145)
        #expect(stats.count == 5)
        // Every sample is kept, the paused one too.
        #expect(workout.samples.count == 6)
        // The 7 s without a value (5 to 12) made the strap stale 5 s after its last value.
        #expect(workout.events.map(\.name) == ["pause", "resume", "sensorState", "sensorState"])
        #expect(workout.events.suffix(2).map(\.time) == [s(10), s(12)])
    }

    @Test func impossibleTransitionsAreTypedErrors() throws {
        var m = WorkoutStateMachine()
        #expect(throws: WorkoutBuilderError.invalidTransition(action: "pause", state: .notStarted)) { try m.pause(at: .zero) }
        #expect(throws: WorkoutBuilderError.invalidTransition(action: "finish", state: .notStarted)) {
            _ = try m.finishWorkout()
        }
        try m.beginCollection(at: .zero, date: Self.date)
        #expect(throws: WorkoutBuilderError.invalidTransition(action: "resume", state: .collecting)) {
            try m.resume(at: s(1))
        }
        #expect(throws: WorkoutBuilderError.invalidTransition(action: "begin collecting", state: .collecting)) {
            try m.beginCollection(at: s(1), date: Self.date)
        }
        try m.pause(at: s(2))
        #expect(throws: WorkoutBuilderError.invalidTransition(action: "pause", state: .paused)) { try m.pause(at: s(3)) }
        try m.endCollection(at: s(4))
        #expect(throws: WorkoutBuilderError.invalidTransition(action: "end", state: .ended)) { try m.endCollection(at: s(5)) }
        let workout = try m.finishWorkout()
        #expect(workout.activeDuration == s(2))  // paused from 2 to the end at 4
        #expect(throws: WorkoutBuilderError.invalidTransition(action: "discard", state: .finished)) { try m.discard() }
    }

    @Test func customZonesOnlyBeforeCollection() throws {
        var m = try started()
        let zones = try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [100, 150])
        #expect(throws: WorkoutBuilderError.customZonesAfterStart(.heartRate)) { try m.setCustomZoneConfiguration(zones) }
    }

    @Test func zonesComeFromCustomThenPreferredThenSystem() throws {
        var preferences = ZonePreferences(profile: AthleteProfile(age: 40, restingHeartRate: 50, functionalThresholdPower: 250))
        let system = try #require(WorkoutStateMachine(preferences: preferences).zoneConfiguration(for: .heartRate))
        #expect(system.source == .system)
        #expect(system.boundaryValues == [128, 141, 154, 167])
        let preferred = try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [120, 140, 155, 170])
        preferences.setPreferredConfiguration(preferred)
        var m = WorkoutStateMachine(preferences: preferences)
        #expect(m.zoneConfiguration(for: .heartRate)?.source == .user)
        try m.setCustomZoneConfiguration(try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [100, 150]))
        #expect(m.zoneConfiguration(for: .heartRate)?.source == .custom)
        #expect(m.zoneConfiguration(for: .heartRate)?.zones.count == 3)
        #expect(m.zoneConfiguration(for: .cyclingPower)?.source == .system)
        #expect(WorkoutStateMachine().zoneConfiguration(for: .heartRate) == nil)
    }

    @Test func multisportActivitiesSplitTheZoneTime() throws {
        var m = try started()
        m.add(hr(130, at: 0))  // z1
        m.add(hr(150, at: 4))  // z2
        try m.beginActivity(.running, at: s(6))  // the bike: z1 4 s, z2 2 s
        m.add(hr(150, at: 8))  // the sample at 4 holds to 9 at most, but the next comes at 8: z2 [6, 10) for the run
        try m.endCollection(at: s(10))
        let workout = try m.finishWorkout()
        #expect(workout.activityType == .multisport)
        #expect(workout.activities.map(\.activityType) == [.cycling, .running])
        #expect(workout.activities.map(\.start) == [s(0), s(6)])
        #expect(workout.activities.map(\.end) == [s(6), s(10)])
        let bike = try #require(workout.activities[0].zoneGroupsByType[.heartRate])
        let run = try #require(workout.activities[1].zoneGroupsByType[.heartRate])
        #expect(bike.durations == [s(0), s(4), s(2), s(0)])
        #expect(run.durations == [s(0), s(0), s(4), s(0)])
        #expect(try bike.adding(run).durations == workout.zoneGroupsByType[.heartRate]?.durations)
    }

    @Test func activityAtTheStartRenamesTheFirstActivity() throws {
        var m = try started(activity: .cycling)
        try m.beginActivity(.running, at: .zero)
        try m.endCollection(at: s(5))
        let workout = try m.finishWorkout()
        #expect(workout.activities.map(\.activityType) == [.running])
        #expect(workout.activityType == .running)
    }

    @Test func lapsCoverTheWorkout() throws {
        var m = try started()
        try m.lap(at: s(3))
        try m.lap(at: s(3))  // a second press at the same instant makes no empty lap
        try m.lap(at: s(7))
        try m.endCollection(at: s(10))
        let workout = try m.finishWorkout()
        #expect(workout.laps == [s(0)..<s(3), s(3)..<s(7), s(7)..<s(10)])
        #expect(workout.events.filter { $0.kind == .lap }.count == 3)
    }

    @Test func lateInputsAreTreatedAsArrivingAtTheLatestTime() throws {
        var m = try started()
        m.add(hr(130, at: 5))
        m.add(hr(150, at: 4))  // from a ring drained late: stamped 5, replaces the 130 at once
        try m.endCollection(at: s(6))
        let workout = try m.finishWorkout()
        #expect(workout.zoneGroupsByType[.heartRate]?.durations == [s(0), s(0), s(1), s(0)])
        #expect(workout.samples.map(\.time) == [s(5), s(5)])
    }

    @Test func zonedQuantitiesWithoutSamplesHaveNoGroup() throws {
        var m = WorkoutStateMachine(preferences: ZonePreferences(profile: AthleteProfile(functionalThresholdPower: 250)))
        try m.beginCollection(at: .zero, date: Self.date)
        m.add(hr(130, at: 1))
        try m.endCollection(at: s(2))
        #expect(try m.finishWorkout().zoneGroupsByType.isEmpty)
    }

    @Test func samplesOutsideTheWorkoutAreIgnored() throws {
        var m = WorkoutStateMachine()
        m.add(hr(130, at: 0))  // before collection
        try m.beginCollection(at: s(10), date: Self.date)
        m.add(hr(130, at: 9))  // before the start
        m.add(hr(131, at: 11))
        try m.endCollection(at: s(12))
        m.add(hr(132, at: 13))  // after the end
        let workout = try m.finishWorkout()
        #expect(workout.samples.map(\.value) == [131])
        #expect(workout.duration == s(2))
    }

    @Test func outputsReportStateEventsAndZoneUpdates() throws {
        var m = try started()
        var names: [String] = []
        func drain() {
            while let output = m.nextOutput() {
                switch output {
                case .state(let state): names.append("state:\(state.rawValue)")
                case .event(let event): names.append("event:\(event.name)")
                case .zoneUpdate(let update): names.append("zone:\(update.currentZoneIndex.map(String.init) ?? "none")")
                case .statistics: names.append("statistics")
                }
            }
        }
        drain()
        m.add(hr(130, at: 0))
        m.add(hr(131, at: 1))  // same zone: no update
        m.tick(at: s(1))
        m.tick(at: s(1.5))  // less than a second later: no statistics
        m.tick(at: s(7))  // the hold of the sample at 1 ended at 6: "no zone"; the strap went stale at 6; statistics
        try m.pause(at: s(8))
        drain()
        #expect(
            names == [
                "state:collecting", "zone:1", "statistics", "zone:none", "event:sensorState", "statistics", "event:pause",
                "state:paused",
            ])
    }
}
