public import Zones

/// Energy from heart rate, for a workout without a power meter or a strap that counts its own:
/// Keytel et al. (2005), "Prediction of energy expenditure from heart rate monitoring during
/// submaximal exercise" (J Sports Sci 23(3):289-297), the equations without VO2max:
///
///     men:   kJ/min = -55.0969 + 0.6309 HR + 0.1988 weight + 0.2017 age
///     women: kJ/min = -20.4022 + 0.4472 HR - 0.1263 weight + 0.0740 age
///
/// with HR in bpm, weight in kg and age in years, over the active time a heart rate held (as the
/// zone rule holds one, 5 s). Linear in the heart rate, so the held values' mean over that time
/// gives the sum exactly (`WorkoutStatistics.HeartRate.heldAverage`), live and stored alike. A
/// total below zero (a resting heart rate, below the equations' range) is none. Pure.
public enum HeartRateCalories {
    /// kcal for `heartRate`'s held time, for `profile` (its sex, weight and age on `date`); nil
    /// when one of them is missing or no heart rate held.
    public static func kilocalories(_ heartRate: WorkoutStatistics.HeartRate, profile: AthleteProfile, on date: CalendarDate?) -> Double? {
        guard let sex = profile.sex, let weight = profile.weight, let age = try? profile.age(on: date),
            let mean = heartRate.heldAverage, heartRate.heldDuration > .zero
        else { return nil }
        let (w, a) = (Double(weight), Double(age))
        let kilojoulesPerMinute =
            switch sex {
            case .male: -55.0969 + 0.6309 * mean + 0.1988 * w + 0.2017 * a
            case .female: -20.4022 + 0.4472 * mean - 0.1263 * w + 0.0740 * a
            }
        return max(0, kilojoulesPerMinute * heartRate.heldDuration.seconds / 60 / 4.184)
    }
}

extension WorkoutStatistics {
    /// Calories in kcal, as the exports and the class screen give them: the strap's energy
    /// expended (kJ, 4.184 a kcal), else the work on the pedals (kJ of work are about kcal burnt:
    /// the body's efficiency is about a quarter), else from heart rate for `profile`
    /// (`HeartRateCalories`); nil with none of them.
    public func calories(profile: AthleteProfile?, on date: CalendarDate?) -> Double? {
        energyExpended.map { $0 / 4.184 } ?? cyclingPower.map { max(0, $0.energy) }
            ?? heartRate.flatMap { heartRate in profile.flatMap { HeartRateCalories.kilocalories(heartRate, profile: $0, on: date) } }
    }
}

/// Class points by heart-rate zone, Myzone's way: points for each minute in a zone, by default
/// 1, 2, 3, 4 and 4 for five zones. Zones past the list's end earn its last value. Pure.
public struct ZonePoints: Sendable, Equatable {
    public var perMinute: [Double]

    public static let standard = ZonePoints(perMinute: [1, 2, 3, 4, 4])

    public init(perMinute: [Double]) {
        self.perMinute = perMinute
    }

    /// The points for time in each zone (`durations` by zone index).
    public func points(_ durations: [Duration]) -> Double {
        guard let last = perMinute.last else { return 0 }
        return durations.enumerated().reduce(0) { total, zone in
            total + (zone.offset < perMinute.count ? perMinute[zone.offset] : last) * zone.element.seconds / 60
        }
    }
}
