import Foundation
import SensorCore
import Testing
import Workouts
import WorkoutStore
import Zones

/// The training load of a short ride whose figures are worked out by hand: 20 minutes at a steady
/// 250 W and 162 bpm, for a rider of 40 (maximum 208 - 0.7 × 40 = 180 bpm), resting 50 bpm, FTP
/// 250 W and LTHR 162 bpm, saved and loaded as `workouts show` and `workouts load` see it.
struct TrainingLoadOfAKnownRideTests {
    @Test(arguments: StoreBackend.available)
    func twentyMinutesAtThresholdByHand(_ backend: StoreBackend) throws {
        let athlete = AthleteProfile(age: 40, restingHeartRate: 50, functionalThresholdPower: 250, lactateThresholdHeartRate: 162)
        var machine = WorkoutStateMachine(activityType: .cycling, preferences: ZonePreferences(profile: athlete))
        let start = Date(timeIntervalSince1970: 1_793_640_600)  // 2026-11-02T17:30:00Z
        try machine.beginCollection(at: .zero, date: start)
        for second in 0..<1200 {
            machine.add(Sample(sensor: SensorID(1), type: .heartRate, value: 162, time: .seconds(second)))
            machine.add(Sample(sensor: SensorID(2), type: .cyclingPower, value: 250, time: .seconds(second)))
        }
        try machine.endCollection(at: .seconds(1200))
        let workout = try machine.finishWorkout()
        let folder = try TemporaryFolder()
        let store = try WorkoutStore(address: try backend.newAddress(in: folder))
        let id = try store.save(workout)
        let load = try store.workout(id).load(on: CalendarDate(year: 2026, month: 11, day: 2))

        // NP of a steady 250 W is 250: IF 1, and 20 minutes at FTP are a third of an hour's 100.
        #expect(load.normalizedPower == 250)
        #expect(load.intensityFactor == 1)
        #expect(abs(try #require(load.trainingStressScore) - 100.0 / 3) < 1e-9)
        // 162 bpm is 90 % of 180: Edwards' zone 5, 20 minutes × 5.
        #expect(load.trimp == 100)
        // 20 minutes at the LTHR are a third of the hour at it that scores 100.
        #expect(abs(try #require(load.heartRateStressScore) - 100.0 / 3) < 1e-9)
        // 250 W is power zone 4 of 6 (225 to 263 W), the middle third: all of the time, so hard.
        #expect(load.intensity == .hard)
        #expect(load.stressScore == load.trainingStressScore)

        // The history: one day of 33.3, fitness 33.3 / 42 and fatigue 33.3 / 7 after it.
        let listed = try store.workoutLoads(calendar: ZoneTotalsTests.utcCalendar)
        #expect(listed.map(\.id) == [id])
        #expect(abs((listed.first?.load.stressScore ?? 0) - 100.0 / 3) < 1e-9)
        let day = try #require(CalendarDate(year: 2026, month: 11, day: 2))
        let days = TrainingLoadHistory.days([(day, listed.first?.load.stressScore)], from: day, through: day)
        #expect(abs(days[0].fitness - 100.0 / 3 / 42) < 1e-12 && abs(days[0].fatigue - 100.0 / 3 / 7) < 1e-12)
    }
}
