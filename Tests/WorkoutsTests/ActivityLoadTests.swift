import Foundation
import SensorCore
import Testing
import Workouts
import Zones

/// Each activity of a workout has its own figures and load, and a workout's load is the sum of its
/// activities' (issue 32: the bike's IF was applied to the whole of a bike-and-run).
struct ActivityLoadTests {
    /// Maximum 200, resting 50, FTP 250 W, LTHR 170.
    static let athlete = AthleteProfile(
        age: 40, restingHeartRate: 50, maximumHeartRate: 200, functionalThresholdPower: 250, lactateThresholdHeartRate: 170)

    /// Ten minutes of cycling at a steady 300 W (IF 1.2) and 150 bpm, then `run` seconds of running
    /// at 170 bpm (the threshold) without power; heart rate at 1 Hz, power at 4 Hz.
    static func bikeAndRun(run: Int = 1200, runs: Bool = true) throws -> Workout {
        var machine = WorkoutStateMachine(activityType: .cycling, preferences: ZonePreferences(profile: athlete))
        let (hr, power) = (SensorID(1), SensorID(2))
        machine.sensors = [hr: "hr", power: "power"]
        try machine.beginCollection(at: .zero, date: Date(timeIntervalSince1970: 1_793_640_600))
        let seconds = 600 + run
        for quarter in 0..<(4 * seconds) {
            let time = Duration.milliseconds(250 * quarter)
            let running = runs && quarter >= 2400
            if quarter == 2400, runs { try machine.beginActivity(.running, at: time) }
            if quarter % 4 == 0 {
                machine.add(Sample(sensor: hr, type: .heartRate, value: running ? 170 : 150, time: time))
            }
            if !running { machine.add(Sample(sensor: power, type: .cyclingPower, value: 300, time: time)) }
        }
        try machine.endCollection(at: .seconds(seconds))
        return try machine.finishWorkout()
    }

    /// Banister's weight of a heart rate for `athlete`.
    static func weight(_ bpm: Double) -> Double {
        let x = (bpm - 50) / 150
        return x * 0.64 * exp(1.92 * x)
    }

    @Test func aBikeAndRunIsTheSumOfTheBikesTSSAndTheRunsHeartRateTSS() throws {
        let workout = try Self.bikeAndRun()
        let load = workout.trainingLoad(athlete: Self.athlete, on: nil)
        #expect(load.activities.count == 2)
        let (bike, run) = (load.activities[0], load.activities[1])
        // The bike: 10 minutes at IF 1.2 is 1/6 h x 1.44 x 100 = 24.
        #expect(abs(try #require(bike.intensityFactor) - 1.2) < 1e-9)
        #expect(abs(try #require(bike.trainingStressScore) - 24) < 1e-9)
        #expect(bike.stressScore == bike.trainingStressScore)
        // The run: no power, so no TSS or IF; 20 minutes at threshold is an hrTSS of 100 / 3.
        #expect(run.trainingStressScore == nil && run.intensityFactor == nil && run.normalizedPower == nil)
        #expect(abs(try #require(run.heartRateStressScore) - 100.0 / 3) < 1e-9)
        #expect(run.stressScore == run.heartRateStressScore)
        // The workout: their sum, not the bike's IF over 30 minutes (1.2² x 50 = 72).
        let total = try #require(load.trainingStressScore)
        #expect(abs(total - (24 + 100.0 / 3)) < 1e-9)
        #expect(load.stressScore == load.trainingStressScore)
        #expect(load.intensityFactor == nil)
        // hrTSS and TRIMP are the sums of the activities', the whole workout's by the same rule.
        let bikeHR = 10 * Self.weight(150) / (60 * Self.weight(170)) * 100
        #expect(abs(try #require(bike.heartRateStressScore) - bikeHR) < 1e-9)
        #expect(abs(try #require(load.heartRateStressScore) - (bikeHR + 100.0 / 3)) < 1e-9)
        let whole = WorkoutLoad(
            activeDuration: workout.activeDuration, normalizedPower: nil, heartRateTimes: workout.timeAtEachValue(of: .heartRate),
            zoneGroups: [:], athlete: Self.athlete, on: nil)
        #expect(abs(try #require(whole.trimp) - (try #require(load.trimp))) < 1e-9)
        #expect(load.normalizedPower == workout.statistics.cyclingPower?.normalized)
        #expect(load.intensity != nil)
    }

    @Test func withoutAThresholdTheRunHasNoLoadAndTheWorkoutsIsTheBikes() throws {
        var athlete = Self.athlete
        athlete.lactateThresholdHeartRate = nil
        let load = try Self.bikeAndRun().trainingLoad(athlete: athlete, on: nil)
        #expect(load.activities[1].stressScore == nil)
        #expect(abs(try #require(load.stressScore) - 24) < 1e-9)
        // Neither threshold: no load at all.
        athlete.functionalThresholdPower = nil
        #expect(try Self.bikeAndRun().trainingLoad(athlete: athlete, on: nil).stressScore == nil)
    }

    @Test func eachActivityHasItsOwnStatisticsAndTimeAtEachValue() throws {
        let workout = try Self.bikeAndRun(run: 300)
        let summaries = workout.activitySummaries()
        #expect(summaries.map(\.timerTime) == [.seconds(600), .seconds(300)])
        #expect(summaries[0].statistics.cyclingPower?.normalized == 300)
        #expect(summaries[1].statistics.cyclingPower == nil)
        #expect(summaries[1].statistics.heartRate?.average == 170)
        #expect(summaries.map(\.zoneGroups) == workout.activities.map(\.zoneGroupsByType))
        // Time at each value within each activity: the bike's 150 bpm and the run's 170, adding up
        // to the workout's.
        let bike = workout.timeAtEachValue(of: .heartRate, in: workout.activities[0].start..<workout.activities[0].end)
        let run = workout.timeAtEachValue(of: .heartRate, in: workout.activities[1].start..<workout.activities[1].end)
        #expect(bike.map(\.value) == [150] && bike.map(\.duration) == [.seconds(600)])
        #expect(run.map(\.value) == [170] && run.map(\.duration) == [.seconds(300)])
        #expect(workout.timeAtEachValue(of: .heartRate).map(\.duration) == [.seconds(600), .seconds(300)])
    }

    @Test func aSingleActivityKeepsTheWorkoutsOwnFigures() throws {
        let workout = try Self.bikeAndRun(runs: false)
        #expect(workout.activities.count == 1)
        let load = workout.trainingLoad(athlete: Self.athlete, on: nil)
        let direct = WorkoutLoad(
            activeDuration: workout.activeDuration, normalizedPower: workout.statistics.cyclingPower?.normalized,
            heartRateTimes: workout.timeAtEachValue(of: .heartRate), zoneGroups: workout.zoneGroupsByType,
            athlete: Self.athlete, on: nil)
        #expect(load.activities == [direct])
        var withoutActivities = load
        withoutActivities.activities = []
        #expect(withoutActivities == direct)
        // 30 minutes at IF 1.2: 72.
        #expect(abs(try #require(load.trainingStressScore) - 72) < 1e-9)
        #expect(workout.activitySummaries().map(\.statistics) == [workout.statistics])
    }
}
