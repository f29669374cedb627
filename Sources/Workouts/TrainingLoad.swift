import Foundation
public import SensorCore
public import Zones

/// How hard a workout was, from where its zoned time went (`WorkoutLoad.intensity`).
public enum WorkoutIntensity: String, Sendable, Hashable, CaseIterable {
    case easy, moderate, hard
}

/// The training load of one workout, from what the workout already holds: normalized power and
/// active time for TSS and IF, the time at each heart-rate value for hrTSS and TRIMP, and the zone
/// groups for the intensity class (DESIGN.md §3 "Training load", where the formulas are).
public struct WorkoutLoad: Sendable, Hashable {
    /// Normalized power in W (the workout's statistics), when there were 30 s of power.
    public var normalizedPower: Double?
    /// The FTP the workout was recorded with, in W.
    public var functionalThresholdPower: Int?
    /// IF = NP / FTP; nil for a workout of several activities (each activity has its own).
    public var intensityFactor: Double?
    /// TSS = active seconds × NP × IF / (FTP × 3600) × 100: 100 is an hour at FTP. For a workout of
    /// several activities, the sum of each activity's TSS, else its hrTSS (the bike's power TSS
    /// plus the run's hrTSS), as the sessions of its FIT file say.
    public var trainingStressScore: Double?
    /// Heart-rate TSS: Banister's TRIMP of the workout over the TRIMP of an hour at the
    /// lactate-threshold heart rate, × 100. Needs resting, maximum and threshold heart rate. For
    /// several activities, the sum of theirs.
    public var heartRateStressScore: Double?
    /// Edwards' TRIMP: minutes in the five zones of 50–60, 60–70, 70–80, 80–90 and 90 % and more
    /// of maximum heart rate, weighted 1 to 5. Needs the maximum heart rate (or the age).
    public var trimp: Double?
    /// From the share of zoned time in the lower, middle and upper third of the zones.
    public var intensity: WorkoutIntensity?
    /// The thresholds this load used that the workout's own profile lacked: taken from the
    /// profile as it is now, set after the workout was recorded (`markSetLater(_:)`). Empty when
    /// the load is the recorded profile's alone.
    public var thresholdsSetLater = Thresholds()
    /// Each activity's own load, in the order of the workout's activities
    /// (`Workout.trainingLoad(athlete:on:)`); one, equal to this load, for a single activity; empty
    /// for a load made by `init(activeDuration:...)` alone.
    public var activities: [WorkoutLoad] = []

    /// An FTP and a lactate-threshold heart rate, either or both.
    public struct Thresholds: Sendable, Hashable {
        /// In W.
        public var functionalThresholdPower: Int?
        /// In count/min.
        public var lactateThresholdHeartRate: Int?

        public init(functionalThresholdPower: Int? = nil, lactateThresholdHeartRate: Int? = nil) {
            self.functionalThresholdPower = functionalThresholdPower
            self.lactateThresholdHeartRate = lactateThresholdHeartRate
        }

        public var isEmpty: Bool { functionalThresholdPower == nil && lactateThresholdHeartRate == nil }
    }

    /// Notes which of `later`, thresholds set after the workout and lent to this load, it (and each
    /// activity's) used: the FTP where a power TSS came of it, the LTHR where an hrTSS did.
    public mutating func markSetLater(_ later: Thresholds) {
        for index in activities.indices { activities[index].markSetLater(later) }
        let usedPower = intensityFactor != nil || activities.contains { $0.intensityFactor != nil }
        thresholdsSetLater = Thresholds(
            functionalThresholdPower: usedPower ? later.functionalThresholdPower : nil,
            lactateThresholdHeartRate: heartRateStressScore != nil ? later.lactateThresholdHeartRate : nil)
    }

    /// The load that counts for fitness and fatigue: TSS, else hrTSS, else nil. For several
    /// activities, the sum of each activity's (`trainingStressScore`).
    public var stressScore: Double? { trainingStressScore ?? heartRateStressScore }

    /// Banister's weighting factor for men (Banister 1991); the profile has no sex to choose 1.67.
    public static let banisterExponent = 1.92

    /// - Parameters:
    ///   - activeDuration: time not paused.
    ///   - normalizedPower: the workout's NP in W.
    ///   - heartRateTimes: the active time credited to each heart-rate value by the zone rule
    ///     (values in count/min, any order).
    ///   - zoneGroups: the workout's time in zone by quantity type.
    ///   - athlete: the profile the workout was recorded with (nil: nothing that needs one).
    ///   - day: the workout's day, for an age from a birth date.
    public init(
        activeDuration: Duration, normalizedPower: Double?, heartRateTimes: [(value: Double, duration: Duration)],
        zoneGroups: [QuantityType: WorkoutZoneGroup], athlete: AthleteProfile?, on day: CalendarDate?
    ) {
        self.normalizedPower = normalizedPower
        functionalThresholdPower = athlete?.functionalThresholdPower
        if let np = normalizedPower, let ftp = functionalThresholdPower, ftp > 0 {
            let intensityFactor = np / Double(ftp)
            self.intensityFactor = intensityFactor
            trainingStressScore = activeDuration.seconds * intensityFactor * intensityFactor / 3600 * 100
        }
        let maximum = try? athlete?.maximumHeartRate(on: day)
        if let maximum, maximum > 0, !heartRateTimes.isEmpty {
            trimp = Self.edwardsTRIMP(heartRateTimes, maximum: maximum)
            if let resting = athlete?.restingHeartRate, let threshold = athlete?.lactateThresholdHeartRate,
                Double(resting) < Double(threshold), Double(threshold) <= maximum
            {
                let reserve = maximum - Double(resting)
                func weighted(_ value: Double) -> Double {
                    let x = min(max((value - Double(resting)) / reserve, 0), 1)
                    return x * 0.64 * exp(Self.banisterExponent * x)
                }
                let minutes = heartRateTimes.reduce(0.0) { $0 + $1.duration.seconds / 60 * weighted($1.value) }
                heartRateStressScore = 100 * minutes / (60 * weighted(Double(threshold)))
            }
        }
        intensity = Self.intensity(zoneGroups)
    }

    /// The load of several activities of one workout: TSS the sum of each activity's stress score
    /// (its TSS, else its hrTSS), hrTSS and TRIMP the sums of theirs; no NP, IF or intensity
    /// (`Workout.trainingLoad` gives the workout's NP and intensity from its own figures).
    public init(summing activities: [WorkoutLoad], athlete: AthleteProfile?) {
        functionalThresholdPower = athlete?.functionalThresholdPower
        func sum(_ values: [Double?]) -> Double? {
            let present = values.compactMap { $0 }
            return present.isEmpty ? nil : present.reduce(0, +)
        }
        trainingStressScore = sum(activities.map(\.stressScore))
        heartRateStressScore = sum(activities.map(\.heartRateStressScore))
        trimp = sum(activities.map(\.trimp))
        self.activities = activities
    }

    /// Minutes at each value weighted by its zone of maximum heart rate: 1 for 50 % up to 60 %, ...,
    /// 5 for 90 % and more; below 50 %, nothing. Compared as `10 × value >= k × maximum`, so a
    /// value exactly on a boundary belongs to the zone above, as with every zone here.
    static func edwardsTRIMP(_ times: [(value: Double, duration: Duration)], maximum: Double) -> Double {
        times.reduce(0.0) { total, time in
            let weight = (5...9).last { 10 * time.value >= Double($0) * maximum }.map { $0 - 4 } ?? 0
            return total + Double(weight) * time.duration.seconds / 60
        }
    }

    /// The zones split in three by index: the lower and the upper third have `(n + 1) / 3` zones
    /// each (1 of 3 or 4, 2 of 5 to 7, 3 of 8 or 9), the middle the rest. With the default zones:
    /// power zones 1–2 (below 75 % FTP), 3–4 and 5–6 (above 105 %); heart-rate zones 1–2 (below 70 %
    /// of the reserve), 3 and 4–5 (above 80 %). Of the zoned time of power (heart rate when no
    /// power was zoned): hard when the upper third has 10 % or more, or the middle and upper
    /// together 60 % or more; moderate when the middle and upper have 20 % or more; else easy.
    static func intensity(_ zoneGroups: [QuantityType: WorkoutZoneGroup]) -> WorkoutIntensity? {
        guard
            let group = [QuantityType.cyclingPower, .heartRate].lazy.compactMap({ zoneGroups[$0] })
                .first(where: { $0.totalDuration > .zero })
        else { return nil }
        let count = group.durations.count
        let outer = (count + 1) / 3
        let total = group.totalDuration
        let upper = group.durations[(count - outer)...].reduce(Duration.zero, +) / total
        let aboveLower = group.durations[outer...].reduce(Duration.zero, +) / total
        if upper >= 0.10 || aboveLower >= 0.60 { return .hard }
        return aboveLower >= 0.20 ? .moderate : .easy
    }
}

/// One day of a training-load history (`sensorbridge workouts load`).
public struct TrainingLoadDay: Sendable, Hashable {
    public var day: CalendarDate
    /// The day's summed stress score (TSS, else hrTSS, per workout).
    public var load: Double
    /// Workouts that day, and how many of them had no stress score (no power with FTP, no heart
    /// rate with a threshold): their load is missing from `load`.
    public var workouts: Int
    public var workoutsWithoutScore: Int
    /// Fitness (CTL), fatigue (ATL) after the day's load, and form (TSB) going into the day.
    public var fitness: Double
    public var fatigue: Double
    public var form: Double
}

/// Fitness, fatigue and form over days, by the usual definitions (Coggan's performance manager):
/// each an exponentially weighted average of the daily load, with time constants of 42 and 7 days,
///
///     fitness(d) = fitness(d-1) + (load(d) - fitness(d-1)) / 42
///     fatigue(d) = fatigue(d-1) + (load(d) - fatigue(d-1)) / 7
///     form(d)    = fitness(d-1) - fatigue(d-1)
///
/// starting from 0 on the day before the first day, and with a load of 0 on days without workouts.
public enum TrainingLoadHistory {
    public static let fitnessDays = 42.0
    public static let fatigueDays = 7.0

    /// The days from `first` through `last`, both included, each with its workouts' loads.
    /// - Parameter workouts: each workout's day and stress score (nil when it has none).
    public static func days(
        _ workouts: [(day: CalendarDate, stressScore: Double?)], from first: CalendarDate, through last: CalendarDate
    ) -> [TrainingLoadDay] {
        var byDay: [Int: (load: Double, count: Int, unscored: Int)] = [:]
        for workout in workouts {
            var entry = byDay[workout.day.dayNumber, default: (0, 0, 0)]
            entry.load += workout.stressScore ?? 0
            entry.count += 1
            if workout.stressScore == nil { entry.unscored += 1 }
            byDay[workout.day.dayNumber] = entry
        }
        var days: [TrainingLoadDay] = []
        var fitness = 0.0
        var fatigue = 0.0
        for number in first.dayNumber...max(first.dayNumber, last.dayNumber) {
            guard let day = CalendarDate(dayNumber: number) else { break }
            let entry = byDay[number] ?? (0, 0, 0)
            let form = fitness - fatigue
            fitness += (entry.load - fitness) / fitnessDays
            fatigue += (entry.load - fatigue) / fatigueDays
            days.append(
                TrainingLoadDay(
                    day: day, load: entry.load, workouts: entry.count, workoutsWithoutScore: entry.unscored,
                    fitness: fitness, fatigue: fatigue, form: form))
        }
        return days
    }
}
