import Foundation
import SensorCore
import Testing
import Workouts
import Zones

/// Training load (DESIGN.md §3 "Training load"): worked examples computed by hand.
struct TrainingLoadTests {
    static let athlete = AthleteProfile(age: 40, restingHeartRate: 50, maximumHeartRate: 200, functionalThresholdPower: 250)

    static func load(
        active: Duration = .seconds(3600), np: Double? = nil, heartRates: [(Double, Duration)] = [],
        zoneGroups: [QuantityType: WorkoutZoneGroup] = [:], athlete: AthleteProfile? = athlete, threshold: Int? = nil
    ) -> WorkoutLoad {
        var athlete = athlete
        athlete?.lactateThresholdHeartRate = threshold
        return WorkoutLoad(
            activeDuration: active, normalizedPower: np, heartRateTimes: heartRates.map { (value: $0.0, duration: $0.1) },
            zoneGroups: zoneGroups, athlete: athlete, on: nil)
    }

    @Test func trainingStressScoreAndIntensityFactorFromNormalizedPower() throws {
        // An hour at FTP is 100.
        let atThreshold = Self.load(np: 250)
        #expect(atThreshold.intensityFactor == 1)
        #expect(atThreshold.trainingStressScore == 100)
        #expect(atThreshold.stressScore == 100)
        // 90 minutes at NP 200: IF 0.8, TSS 1.5 x 0.64 x 100 = 96.
        let ride = Self.load(active: .seconds(5400), np: 200)
        #expect(abs(try #require(ride.intensityFactor) - 0.8) < 1e-12)
        #expect(abs(try #require(ride.trainingStressScore) - 96) < 1e-9)
        // No FTP or no NP: no TSS.
        #expect(Self.load(np: 200, athlete: AthleteProfile(age: 40)).trainingStressScore == nil)
        #expect(Self.load(np: nil).trainingStressScore == nil)
        #expect(Self.load(np: 200, athlete: nil).intensityFactor == nil)
    }

    @Test func edwardsTRIMPWeighsMinutesByZoneOfMaximumHeartRate() {
        // Maximum 200: zones start at 100, 120, 140, 160 and 180 bpm; a value on a boundary is in the zone above.
        let minutes: [(Double, Duration)] = [
            (99, .seconds(600)), (100, .seconds(60)), (119.5, .seconds(60)), (120, .seconds(120)), (140, .seconds(60)),
            (179, .seconds(60)), (180, .seconds(30)), (230, .seconds(30)),
        ]
        // 0 + 1 + 1 + 2x2 + 3 + 4 + 5x0.5 + 5x0.5
        #expect(Self.load(heartRates: minutes).trimp == 18)
        // A maximum from the age: Tanaka's 208 - 0.7 x 40 = 180; 90 bpm is 50 %.
        #expect(Self.load(heartRates: [(90, .seconds(120))], athlete: AthleteProfile(age: 40)).trimp == 2)
        #expect(Self.load(heartRates: [(90, .seconds(120))], athlete: AthleteProfile()).trimp == nil)
    }

    @Test func heartRateStressScoreIsAnHourAtThresholdFor100() throws {
        let hour = Self.load(heartRates: [(170, .seconds(3600))], threshold: 170)
        #expect(abs(try #require(hour.heartRateStressScore) - 100) < 1e-9)
        #expect(hour.stressScore == hour.heartRateStressScore)
        // Half an hour at threshold and half an hour at rest: 50.
        let half = Self.load(heartRates: [(170, .seconds(1800)), (50, .seconds(1800))], threshold: 170)
        #expect(abs(try #require(half.heartRateStressScore) - 50) < 1e-9)
        // Banister's weight grows faster than the heart rate: an hour at 185 is more than 100 x 185/170.
        let above = try #require(Self.load(heartRates: [(185, .seconds(3600))], threshold: 170).heartRateStressScore)
        let x = (185.0 - 50) / 150, xt = (170.0 - 50) / 150
        #expect(abs(above - 100 * x * exp(1.92 * x) / (xt * exp(1.92 * xt))) < 1e-9)
        // Below rest counts nothing; without a threshold, or a threshold at rest, there is no hrTSS.
        #expect(Self.load(heartRates: [(40, .seconds(3600))], threshold: 170).heartRateStressScore == 0)
        #expect(Self.load(heartRates: [(170, .seconds(3600))]).heartRateStressScore == nil)
        #expect(Self.load(heartRates: [(170, .seconds(3600))], threshold: 50).heartRateStressScore == nil)
        // Power first: TSS is the stress score when both are there.
        #expect(Self.load(np: 250, heartRates: [(170, .seconds(1800))], threshold: 170).stressScore == 100)
    }

    @Test func intensityClassFromTheThirdsOfTheZones() throws {
        let power = try WorkoutZoneConfiguration(
            quantityType: .cyclingPower, boundaryValues: [138, 188, 225, 263, 300])  // six zones: 2 + 2 + 2
        let heart = try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [128, 141, 154, 167])  // 2 + 1 + 2
        func group(_ configuration: WorkoutZoneConfiguration, _ minutes: [Int]) throws -> WorkoutZoneGroup {
            try WorkoutZoneGroup(configuration: configuration, durations: minutes.map { .seconds(60 * $0) })
        }
        func intensity(_ groups: [QuantityType: WorkoutZoneGroup]) -> WorkoutIntensity? {
            Self.load(zoneGroups: groups).intensity
        }
        #expect(intensity([.cyclingPower: try group(power, [20, 62, 18, 0, 0, 0])]) == .easy)  // 18 % in 3-4
        #expect(intensity([.cyclingPower: try group(power, [20, 58, 22, 0, 0, 0])]) == .moderate)  // 22 %
        #expect(intensity([.cyclingPower: try group(power, [20, 60, 20, 0, 0, 0])]) == .moderate)  // 20 %
        #expect(intensity([.cyclingPower: try group(power, [10, 30, 30, 30, 0, 0])]) == .hard)  // 60 % in 3-6
        #expect(intensity([.cyclingPower: try group(power, [40, 50, 0, 0, 5, 5])]) == .hard)  // 10 % in 5-6
        #expect(intensity([.cyclingPower: try group(power, [41, 50, 0, 0, 9, 0])]) == .easy)  // 9 % in 5-6
        // Power is used when it has zoned time; heart rate otherwise.
        let groups = [
            .cyclingPower: try group(power, [0, 0, 0, 0, 0, 0]), QuantityType.heartRate: try group(heart, [10, 20, 30, 0, 0]),
        ]
        #expect(intensity(groups) == .moderate)  // heart-rate zone 3, the middle of five, has 50 %
        #expect(intensity([.heartRate: try group(heart, [50, 40, 10, 0, 0])]) == .easy)
        #expect(intensity([:]) == nil)
    }

    @Test func calendarDaysCountAcrossMonthsYearsAndLeapDays() throws {
        #expect(CalendarDate(year: 1970, month: 1, day: 1)?.dayNumber == 0)
        #expect(CalendarDate(year: 2000, month: 3, day: 1)?.dayNumber == 11_017)
        #expect(CalendarDate(year: 1969, month: 12, day: 31)?.dayNumber == -1)
        #expect(CalendarDate(dayNumber: 20_788) == CalendarDate(year: 2026, month: 12, day: 1))
        #expect(CalendarDate(year: 2024, month: 2, day: 28)?.adding(days: 1) == CalendarDate(year: 2024, month: 2, day: 29))
        #expect(CalendarDate(year: 2026, month: 12, day: 31)?.adding(days: 1) == CalendarDate(year: 2027, month: 1, day: 1))
        #expect(CalendarDate(year: 1, month: 1, day: 1)?.adding(days: -1) == nil)
        // Day by day from year 1 to 9999, each the next day of the one before.
        var day = try #require(CalendarDate(year: 1, month: 1, day: 1))
        var number = day.dayNumber
        var wrong = 0
        while let next = CalendarDate(dayNumber: number + 1) {
            if !(next > day) || next.dayNumber != number + 1 { wrong += 1 }
            (day, number) = (next, number + 1)
        }
        #expect(wrong == 0)
        #expect(day == CalendarDate(year: 9999, month: 12, day: 31))
    }

    @Test func fitnessFatigueAndFormFollowTheDailyLoad() throws {
        let first = try #require(CalendarDate(year: 2026, month: 10, day: 30))
        let days = TrainingLoadHistory.days(
            [(first, 100), (first.adding(days: 2)!, 60), (first.adding(days: 2)!, nil), (first.adding(days: 2)!, 40)],
            from: first, through: first.adding(days: 3)!)
        #expect(days.map(\.day.description) == ["2026-10-30", "2026-10-31", "2026-11-01", "2026-11-02"])
        #expect(days.map(\.load) == [100, 0, 100, 0])
        #expect(days.map(\.workouts) == [1, 0, 3, 0])
        #expect(days.map(\.workoutsWithoutScore) == [0, 0, 1, 0])
        var (fitness, fatigue) = (0.0, 0.0)
        for day in days {
            #expect(abs(day.form - (fitness - fatigue)) < 1e-12)
            fitness += (day.load - fitness) / 42
            fatigue += (day.load - fatigue) / 7
            #expect(abs(day.fitness - fitness) < 1e-12 && abs(day.fatigue - fatigue) < 1e-12)
        }
        #expect(abs(days[0].fitness - 100.0 / 42) < 1e-12)
        #expect(abs(days[1].form - (100.0 / 42 - 100.0 / 7)) < 1e-12)
        // A workout before the first day is not counted; nothing after the last day is made up.
        #expect(TrainingLoadHistory.days([(first, 100)], from: first.adding(days: 1)!, through: first.adding(days: 1)!)[0].load == 0)
    }
}

/// Target zones: the coach's debounce and pauses, and the time in target of a zone group.
struct TargetZoneTests {
    static let target = WorkoutTarget(quantityType: .heartRate, zones: 1...2)

    @Test func theAlertComesAfterTheDebounceOfActiveTimeOutOfTheTarget() {
        var coach = TargetZoneCoach(target: Self.target, debounce: .seconds(10))
        coach.zone(1, at: .seconds(1))
        #expect(coach.outFor(at: .seconds(30)) == nil)
        coach.zone(3, at: .seconds(40))
        #expect(coach.outFor(at: .seconds(45)) == .seconds(5) && !coach.alerting(at: .seconds(49.999)))
        #expect(coach.alerting(at: .seconds(50)))
        // A pause stops it; the resume starts it again from zero while still out.
        coach.pause()
        #expect(coach.outFor(at: .seconds(60)) == nil && !coach.alerting(at: .seconds(60)))
        coach.zone(4, at: .seconds(61))
        #expect(coach.outFor(at: .seconds(70)) == nil)
        coach.resume(at: .seconds(80))
        #expect(coach.outFor(at: .seconds(85)) == .seconds(5))
        // No zone (a stale strap) is not out of the target; below it is.
        coach.zone(nil, at: .seconds(86))
        #expect(coach.outFor(at: .seconds(100)) == nil)
        coach.zone(0, at: .seconds(101))
        coach.zone(3, at: .seconds(105))  // still out: counted from 101
        #expect(coach.outFor(at: .seconds(111)) == .seconds(10) && coach.alerting(at: .seconds(111)))
        coach.zone(2, at: .seconds(112))
        #expect(!coach.alerting(at: .seconds(200)))
    }

    @Test func timeInTargetIsTheTargetZonesShareOfActiveTime() throws {
        let configuration = try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [120, 140, 160])
        let group = try WorkoutZoneGroup(configuration: configuration, durations: [.seconds(60), .seconds(120), .seconds(180), .seconds(40)])
        let (time, share) = Self.target.timeInTarget(group, activeDuration: .seconds(500))
        #expect(time == .seconds(300) && share == 0.6)
        #expect(WorkoutTarget(quantityType: .heartRate, zones: 3...8).timeInTarget(group, activeDuration: .zero) == (.seconds(40), 0))
        #expect(Self.target.label == "heart-rate zones 2-3")
        #expect(WorkoutTarget(quantityType: .cyclingPower, zones: 3...3).label == "power zone 4")
    }
}
