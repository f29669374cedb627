import Foundation
import SensorCore
import Testing
import Workouts
import Zones

/// A strap's "no contact" and a refused value end the previous value's hold at once, live (the
/// state machine) and in every figure worked out again from the stored samples: laps, activities,
/// time at each value and re-bucketing, which read the hold ends `Workout.samplesWithHoldEnds` puts
/// back among the samples (issue 32, item 4).
@Suite struct HoldEndTests {
    static let heartZones = try! WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [110, 120, 130, 140])
    static let powerZones = try! WorkoutZoneConfiguration(quantityType: .cyclingPower, boundaryValues: [100, 150, 200, 250, 300])

    /// 60 s: heart rate and power every 2 s (so each value is held 2 s), no contact at 11 (the
    /// value of 10 would have been held to 15), a refused power value at 31, a pause from 40 to 44,
    /// laps at 20 and 35, and a second activity from 25.
    static func ride() throws -> Workout {
        var m = WorkoutStateMachine(activityType: .cycling)
        m.sensors = [SensorID(1): "hr", SensorID(2): "power"]
        for configuration in [heartZones, powerZones] { try m.setCustomZoneConfiguration(configuration) }
        try m.beginCollection(at: .zero, date: Date(timeIntervalSince1970: 0))
        for second in stride(from: 0, through: 58, by: 2) {
            if second == 20 || second == 36 { try m.lap(at: .seconds(second)) }
            if second == 26 { try m.beginActivity(.running, at: .seconds(25)) }
            if second == 40 { try m.pause(at: .seconds(40)) }
            if second == 44 { try m.resume(at: .seconds(44)) }
            if !(12...18).contains(second) {
                m.add(Sample(sensor: SensorID(1), type: .heartRate, value: Double(105 + second), time: .seconds(second)))
            }
            if !(32...34).contains(second) {
                m.add(Sample(sensor: SensorID(2), type: .cyclingPower, value: Double(120 + 3 * second), time: .seconds(second)))
            }
            if second == 10 { m.sensorValues(SensorID(1), .noContact, at: .seconds(11)) }
            if second == 30 { m.sensorValues(SensorID(2), .invalid, at: .seconds(31)) }
        }
        try m.endCollection(at: .seconds(60))
        return try m.finishWorkout()
    }

    @Test func holdEndsSitAfterTheLastValueOfTheSensorThatStoppedCounting() throws {
        let workout = try Self.ride()
        let ends = workout.samplesWithHoldEnds.filter(\.value.isNaN).map { "\($0.type) \($0.time.seconds)" }
        #expect(ends == ["\(QuantityType.heartRate) 11.0", "\(QuantityType.cyclingPower) 31.0"])
        #expect(workout.samplesWithHoldEnds.filter { !$0.value.isNaN } == workout.samples)
    }

    @Test func lapsActivitiesAndTimeAtEachValueAgreeWithTheLiveZoneGroups() throws {
        let workout = try Self.ride()
        for type in [QuantityType.heartRate, .cyclingPower] {
            let live = try #require(workout.zoneGroupsByType[type])
            // Nothing is credited in the gaps: heart rate's value of 10 stops at 11, power's of 30 at 31.
            let gap: Duration = type == .heartRate ? .seconds(9) : .seconds(5)
            let pausedOrBeforeFirst = Duration.seconds(4)
            #expect(live.durations.reduce(.zero, +) == .seconds(60) - pausedOrBeforeFirst - gap, "\(type)")

            let laps = workout.lapSummaries().compactMap { $0.zoneGroups[type] }
            #expect(laps.count == workout.laps.count)
            #expect(Self.sum(laps.map(\.durations)) == live.durations, "laps, \(type)")

            let activities = workout.activitySummaries().compactMap { $0.zoneGroups[type] }
            #expect(Self.sum(activities.map(\.durations)) == live.durations, "activities, \(type)")

            var byZone = [Duration](repeating: .zero, count: live.durations.count)
            for (value, duration) in workout.timeAtEachValue(of: type) {
                byZone[live.configuration.zoneIndex(for: value)!] += duration
            }
            #expect(byZone == live.durations, "time at each value, \(type)")

            let timeline = try WorkoutTimeline(start: workout.start, end: workout.end, pauses: workout.pauses)
            let rebucketed = WorkoutZoneGroup(
                rebucketing: workout.samplesWithHoldEnds, into: live.configuration, timeline: timeline)
            #expect(rebucketed.durations == live.durations, "re-bucketing, \(type)")
        }
        // Energy: the laps' add up to the workout's, which stopped the value of 30 at 31.
        let energy = workout.lapSummaries().compactMap { $0.statistics.cyclingPower?.energy }.reduce(0, +)
        let total = try #require(workout.statistics.cyclingPower?.energy)
        #expect(abs(energy - total) < 1e-9)
    }

    static func sum(_ rows: [[Duration]]) -> [Duration] {
        rows.dropFirst().reduce(rows.first ?? []) { zip($0, $1).map { $0 + $1 } }
    }
}
