public import Foundation
public import SensorCore
public import Workouts
import Zones

/// A ramp made up for DFA α1 tests, built by the real `WorkoutStateMachine`: heart rate climbing
/// linearly from `heartRates.lowerBound` to its upper bound and power from `powers.lowerBound` to its
/// upper bound over `seconds`, a heart-rate notification each second carrying the RR intervals of
/// the beats since the one before. The intervals are 60 / heart rate plus an AR(1) process of
/// standard deviation 10 ms whose coefficient falls linearly from 0.95 to −0.6 over the ramp, so
/// the beats go from strongly correlated (α1 about 1.4) to anticorrelated (α1 below 0.5), as a
/// rider's do from easy to hard. Deterministic for a seed.
public enum SyntheticRamp {
    public static let sensors: [SensorID: String] = [SensorID(1): "hr", SensorID(2): "power"]

    public static func workout(
        seconds: Int = 1500, seed: UInt64 = 33, heartRates: ClosedRange<Double> = 100...190,
        powers: ClosedRange<Double> = 100...350, startDate: Date, start: Duration = .seconds(3)
    ) throws -> Workout {
        var random = SplitMix64(seed: seed)
        var machine = WorkoutStateMachine(
            activityType: .cycling,
            preferences: ZonePreferences(profile: AthleteProfile(age: 40, restingHeartRate: 50, functionalThresholdPower: 250)))
        machine.sensors = sensors
        try machine.beginCollection(at: start, date: startDate)
        let (hr, power) = (SensorID(1), SensorID(2))
        func share(_ beatTime: Double) -> Double { min(1, max(0, beatTime / Double(seconds))) }
        var fluctuation = 0.0
        var beatTime = 0.0
        for second in 0..<seconds {
            let time = start + .seconds(second)
            var intervals: [Double] = []
            while beatTime < Double(second) {
                let progress = share(beatTime)
                let coefficient = 0.95 - 1.55 * progress
                fluctuation = coefficient * fluctuation + 0.01 * (1 - coefficient * coefficient).squareRoot() * random.gaussian()
                let interval = 60 / (heartRates.lowerBound + progress * (heartRates.upperBound - heartRates.lowerBound)) + fluctuation
                beatTime += interval
                intervals.append((interval * 1024).rounded() / 1024)
            }
            let progress = share(Double(second))
            let bpm = (heartRates.lowerBound + progress * (heartRates.upperBound - heartRates.lowerBound)).rounded()
            machine.add(Sample(sensor: hr, type: .heartRate, value: bpm, time: time))
            for interval in intervals {
                machine.add(Sample(sensor: hr, type: .rrInterval, value: interval, time: time))
            }
            let watts = (powers.lowerBound + progress * (powers.upperBound - powers.lowerBound)).rounded()
            machine.add(Sample(sensor: power, type: .cyclingPower, value: watts, time: time))
        }
        try machine.endCollection(at: start + .seconds(seconds))
        return try machine.finishWorkout()
    }
}

extension SplitMix64 {
    /// A standard normal value (Box-Muller).
    public mutating func gaussian() -> Double {
        let u = max(uniform(0, 1), .leastNonzeroMagnitude)
        let v = uniform(0, 1)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}
