import Foundation
import SensorCore
import Testing
import Workouts
import Zones

/// A class's scoring (issue 34): calories from heart rate by Keytel et al. (2005) over the time a
/// heart rate held, and zone points a minute by zone; worked out by hand.
@Suite struct ClassScoringTests {
    /// 140 bpm, one sample a second, for 5 minutes, a 2-minute pause, then from 7:00 to 11:40 with
    /// a 20 s silence at 10:00; the end at 12:00: the held time and mean the statistics keep.
    static func ride(_ profile: AthleteProfile) throws -> Workout {
        var m = WorkoutStateMachine(activityType: .running, preferences: ZonePreferences(profile: profile))
        try m.beginCollection(at: .zero, date: WorkoutStateMachineTests.date)
        for t in stride(from: 0.0, to: 300, by: 1) { m.add(hr(140, at: t)) }
        try m.pause(at: s(300))
        try m.resume(at: s(420))
        for t in stride(from: 420.0, to: 700, by: 1) where !(600..<620).contains(t) { m.add(hr(140, at: t)) }
        try m.endCollection(at: s(720))
        return try m.finishWorkout()
    }

    @Test func caloriesFromHeartRateByKeytel() throws {
        let man = AthleteProfile(age: 40, sex: .male, weight: 75)
        let workout = try Self.ride(man)
        let heartRate = try #require(workout.statistics.heartRate)
        // Held: 0-300 s (the pause cuts the last hold), 420-600, the silence's first 4 s (the hold of
        // the sample at 599 s runs to 604), 620-700 and 4 s after the last sample: 568 s.
        #expect(heartRate.heldDuration == .seconds(568) && heartRate.heldAverage == 140)
        // Men: -55.0969 + 0.6309 × 140 + 0.1988 × 75 + 0.2017 × 40 = 56.2071 kJ/min.
        let kilojoules = 56.2071 * 568 / 60
        let calories = try #require(HeartRateCalories.kilocalories(heartRate, profile: man, on: nil))
        #expect(abs(calories - kilojoules / 4.184) < 1e-9, "\(calories)")
        // Women: -20.4022 + 0.4472 × 140 - 0.1263 × 60 + 0.0740 × 30 = 36.8478 kJ/min.
        let woman = AthleteProfile(age: 30, sex: .female, weight: 60)
        let hers = try #require(HeartRateCalories.kilocalories(heartRate, profile: woman, on: nil))
        #expect(abs(hers - 36.8478 * 568 / 60 / 4.184) < 1e-9, "\(hers)")
        // Without sex, weight or age: none; a power meter's work or a strap's count comes first.
        #expect(HeartRateCalories.kilocalories(heartRate, profile: AthleteProfile(age: 40, weight: 75), on: nil) == nil)
        #expect(workout.statistics.calories(profile: man, on: nil) == calories)
        #expect(workout.statistics.calories(profile: nil, on: nil) == nil)
        // A resting heart rate, below the equations' range, is no negative energy.
        var resting = heartRate
        resting.heldAverage = 40
        #expect(HeartRateCalories.kilocalories(resting, profile: man, on: nil) == 0)
    }

    @Test func zonePointsByTheMinute() {
        let minutes: [Duration] = [.seconds(60), .seconds(120), .zero, .seconds(180), .seconds(60), .seconds(60)]
        // 1×1 + 2×2 + 0 + 4×3 + 4×1, and the sixth zone earns the last value: 4×1.
        #expect(ZonePoints.standard.points(minutes) == 25)
        #expect(ZonePoints(perMinute: [0, 1]).points(minutes) == 2 + 0 + 3 + 1 + 1)
        #expect(ZonePoints(perMinute: []).points(minutes) == 0)
    }
}

/// The heart rate held for 30 s, what `--raise-max-hr` makes the new maximum.
@Suite struct SustainedHeartRateTests {
    func workout(_ values: [(seconds: Range<Int>, bpm: Double)], pause: Range<Int>? = nil) throws -> Workout {
        var m = WorkoutStateMachine(activityType: .cycling)
        try m.beginCollection(at: .zero, date: WorkoutStateMachineTests.date)
        let end = values.map(\.seconds.upperBound).max() ?? 0
        for second in 0..<end {
            if second == pause?.lowerBound { try m.pause(at: .seconds(second)) }
            if second == pause?.upperBound { try m.resume(at: .seconds(second)) }
            if let value = values.first(where: { $0.seconds.contains(second) }) { m.add(hr(value.bpm, at: Double(second))) }
        }
        try m.endCollection(at: .seconds(end))
        return try m.finishWorkout()
    }

    @Test func theHighestHeartRateHeldForThirtySeconds() throws {
        // 190 for 40 s, then 195 for 20 s: 195 never lasts 30 s; every 30 s stretch holds 190 at least.
        #expect(try workout([(0..<60, 150), (60..<100, 190), (100..<120, 195)]).sustainedHeartRate() == 190)
        // 190 for 29 s only: the best 30 s stretch reaches back into the 150s.
        #expect(try workout([(0..<60, 150), (60..<89, 190), (89..<120, 150)]).sustainedHeartRate() == 150)
        // A pause splits the 190s into two stretches of 20 s: neither counts.
        #expect(try workout([(20..<40, 190), (60..<80, 190)], pause: 40..<60).sustainedHeartRate() == nil)
        // A silence longer than the 5 s hold splits a stretch too.
        #expect(try workout([(0..<20, 190), (26..<46, 190)]).sustainedHeartRate() == nil)
    }
}
