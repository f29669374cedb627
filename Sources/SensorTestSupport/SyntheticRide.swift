public import Foundation
public import SensorCore
public import Workouts
public import Zones

/// A ride made up for tests and benchmarks, built by the real `WorkoutStateMachine`: heart rate
/// at 1 Hz with an RR interval per beat, power and cadence at 4 Hz, five-minute blocks climbing
/// through the zones (each block in the middle of a default zone for age 40, resting heart rate
/// 50 and FTP 250 W, with noise of ±3 bpm and ±15 W), two pauses, a power dropout (sensor lost
/// and regained) and a lap every ten minutes (or `lapSeconds`). With `runAfter`, a multisport workout: the bike,
/// then a run with heart rate only.
public enum SyntheticRide {
    /// The sensors: 1 is the heart-rate strap, 2 the power meter.
    public static let sensors: [SensorID: String] = [SensorID(1): "hr", SensorID(2): "power"]

    /// - Parameters:
    ///   - seconds: the workout's length, pauses included (at least 60).
    ///   - seed: varies the noise on every value.
    ///   - startDate: the wall-clock start.
    ///   - start: the start's offset from the session anchor.
    ///   - heartRateShift: added to every heart rate, to make workouts differ.
    ///   - runAfter: seconds after which a run begins (no power from then on); nil for a ride only.
    ///   - lapSeconds: the time between laps, as `--auto-lap` would make them.
    ///   - preferences: the zones (by default those of age 40, resting heart rate 50, FTP 250 W).
    public static func workout(
        seconds: Int, seed: UInt64, startDate: Date, start: Duration = .seconds(7), heartRateShift: Double = 0,
        runAfter: Int? = nil, lapSeconds: Int = 600,
        preferences: ZonePreferences = ZonePreferences(
            profile: AthleteProfile(age: 40, restingHeartRate: 50, functionalThresholdPower: 250))
    ) throws -> Workout {
        var random = SplitMix64(seed: seed)
        var machine = WorkoutStateMachine(activityType: .cycling, preferences: preferences)
        machine.sensors = sensors
        try machine.beginCollection(at: start, date: startDate)
        let pauses = [seconds / 5, seconds * 3 / 5].map { $0..<($0 + max(1, seconds / 50)) }
        let dropout = (seconds * 2 / 5)..<(seconds * 2 / 5 + max(1, seconds / 90))
        let (hr, power) = (SensorID(1), SensorID(2))
        for quarter in 0..<(4 * seconds) {
            let second = quarter / 4
            let time = start + .milliseconds(250 * quarter)
            let running = runAfter.map { second >= $0 } ?? false
            if quarter % 4 == 0 {
                if let runAfter, second == runAfter { try machine.beginActivity(.running, at: time) }
                if second > 0, second % lapSeconds == 0 { try machine.lap(at: time) }
                if pauses.contains(where: { $0.lowerBound == second }) { try machine.pause(at: time) }
                if pauses.contains(where: { $0.upperBound == second }) { try machine.resume(at: time) }
                if second == dropout.lowerBound { machine.sensorLost(power, at: time) }
                if second == dropout.upperBound { machine.sensorRegained(power, at: time) }
            }
            // Blocks of five minutes: 0, 1, 2, 3, 4, 0, ... steps up the zones.
            let block = second / 300 % 5
            if quarter % 4 == 0 {
                let bpm = (121 + 13 * Double(block) + heartRateShift + Double(Int.random(in: -3...3, using: &random))).rounded()
                machine.add(Sample(sensor: hr, type: .heartRate, value: bpm, time: time))
                machine.add(Sample(sensor: hr, type: .rrInterval, value: (60 / bpm * 1024).rounded() / 1024, time: time))
            }
            if !running, !dropout.contains(second) {
                let watts = [110.0, 163, 206, 244, 281][block] + Double(Int.random(in: -15...15, using: &random))
                machine.add(Sample(sensor: power, type: .cyclingPower, value: watts, time: time))
                let rpm = Double(Int.random(in: 82...96, using: &random))
                machine.add(Sample(sensor: power, type: .cyclingCadence, value: rpm, time: time))
            }
        }
        try machine.endCollection(at: start + .seconds(seconds))
        return try machine.finishWorkout()
    }
}
