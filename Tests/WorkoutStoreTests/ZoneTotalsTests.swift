import Foundation
import SensorCore
import SensorTestSupport
import Testing
import Workouts
@testable import WorkoutStore
import Zones

@Suite struct ZoneTotalsTests {
    /// The stored time at each value, summed by zone, equals re-bucketing the raw samples: for
    /// random samples (NaN, repeated and out-of-order times, other quantities among them), pauses,
    /// holds, ends and configurations.
    @Test func valueDurationsEqualRebucketingTheSamples() throws {
        for seed in UInt64(1)...300 {
            var random = SplitMix64(seed: seed)
            let start = Duration.nanoseconds(Int64.random(in: 0...5_000_000_000, using: &random))
            var time = start - .milliseconds(Int64.random(in: 0...800, using: &random))
            var samples: [Sample] = []
            for _ in 0..<Int.random(in: 0...80, using: &random) {
                time += .nanoseconds(Int64.random(in: -200_000_000...2_500_000_000, using: &random))
                let type: QuantityType = Int.random(in: 0..<5, using: &random) == 0 ? .cyclingCadence : .heartRate
                let value = Int.random(in: 0..<25, using: &random) == 0 ? .nan : Double(Int.random(in: 90...180, using: &random))
                samples.append(Sample(sensor: SensorID(1), type: type, value: value, time: time))
            }
            let end = max(start, time - .milliseconds(Int64.random(in: -3000...3000, using: &random)))
            var pauses: [Range<Duration>] = []
            var cursor = start
            while Bool.random(using: &random) {
                let from = cursor + .milliseconds(Int64.random(in: 0...6000, using: &random))
                let to = from + .milliseconds(Int64.random(in: 0...4000, using: &random))
                guard to <= end else { break }
                pauses.append(from..<to)
                cursor = to
            }
            let timeline = try WorkoutTimeline(start: start, end: end, pauses: pauses)
            let hold = Duration.milliseconds(Int64.random(in: 1...6000, using: &random))
            var boundaries: Set<Double> = [Double(Int.random(in: 95...134, using: &random)), 135]
            for _ in 0..<Int.random(in: 0...6, using: &random) { boundaries.insert(Double(Int.random(in: 95...175, using: &random))) }
            let configuration = try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: boundaries.sorted())

            let durations = ValueDurations(samples, of: .heartRate, start: start, timeline: timeline, hold: hold)
            let group = WorkoutZoneGroup(rebucketing: samples, into: configuration, timeline: timeline, maximumHold: hold)
            #expect(durations.zoneDurations(in: configuration) == group.durations.map(\.nanoseconds), "seed \(seed)")
            #expect(durations.durations.allSatisfy { $0 > 0 } && durations.values == durations.values.sorted())
        }
    }

    static var utcCalendar: Calendar {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }

    /// Workouts recorded with different zones are re-bucketed into one configuration and summed by
    /// ISO week (Monday to Sunday) and by month.
    @Test(arguments: StoreBackend.available)
    func totalsByDayWeekAndMonthEqualTheSumOfRebucketedWorkouts(_ backend: StoreBackend) throws {
        let store = try backend.emptyStore()
        // Monday November 2, Sunday November 8, Monday November 9, then December 1.
        let days = [0, 6, 7, 29]
        var workouts: [Workout] = []
        for (index, day) in days.enumerated() {
            var workout = try ride(minutes: 6, seed: UInt64(index + 1), day: day, heartRateShift: Double(index * 4))
            if index == 1 {
                // Recorded with custom five zones: the report must not care.
                workout = try SyntheticRide.workout(
                    seconds: 360, seed: 2, startDate: noonNovember2.addingTimeInterval(6 * 86_400), heartRateShift: 4,
                    preferences: {
                        var p = ZonePreferences()
                        p.setPreferredConfiguration(try! WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [100, 180]))
                        return p
                    }())
            }
            workouts.append(workout)
            try store.save(workout)
        }
        let configuration = try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [110, 125, 140, 150, 165])
        func expected(_ indices: [Int]) throws -> [Duration] {
            try indices.map { try rebucketed(workouts[$0], into: configuration).durations }
                .reduce(Array(repeating: .zero, count: 6)) { zip($0, $1).map(+) }
        }

        let weeks = try store.zoneTotals(in: configuration, by: .week, calendar: Self.utcCalendar)
        #expect(weeks.map(\.workoutCount) == [2, 1, 1])
        #expect(weeks.map(\.periodStart) == [0, 7, 28].map { noonNovember2.addingTimeInterval(Double($0) * 86_400 - 12 * 3600) })
        #expect(weeks.map(\.zoneGroup.durations) == [try expected([0, 1]), try expected([2]), try expected([3])])
        #expect(weeks.allSatisfy { $0.zoneGroup.configuration == configuration })

        let months = try store.zoneTotals(in: configuration, by: .month, calendar: Self.utcCalendar)
        #expect(months.map(\.workoutCount) == [3, 1])
        #expect(months.map(\.zoneGroup.durations) == [try expected([0, 1, 2]), try expected([3])])

        // By day: each workout its own day, at the day's local midnight.
        let byDay = try store.zoneTotals(in: configuration, by: .day, calendar: Self.utcCalendar)
        #expect(byDay.map(\.workoutCount) == [1, 1, 1, 1])
        #expect(byDay.map(\.periodStart) == days.map { noonNovember2.addingTimeInterval(Double($0) * 86_400 - 12 * 3600) })
        #expect(byDay.map(\.zoneGroup.durations) == [try expected([0]), try expected([1]), try expected([2]), try expected([3])])

        let november9On = WorkoutFilter(from: noonNovember2.addingTimeInterval(7 * 86_400 - 12 * 3600))
        let filtered = try store.zoneTotals(in: configuration, by: .month, calendar: Self.utcCalendar, matching: november9On)
        #expect(filtered.map(\.zoneGroup.durations) == [try expected([2]), try expected([3])])

        let power = try WorkoutZoneConfiguration(quantityType: .cyclingPower, boundaryValues: [150, 200, 250])
        let powerWeeks = try store.zoneTotals(in: power, by: .week, calendar: Self.utcCalendar)
        #expect(powerWeeks.map(\.zoneGroup.totalDuration) == [
            try rebucketed(workouts[0], into: power).totalDuration + rebucketed(workouts[1], into: power).totalDuration,
            try rebucketed(workouts[2], into: power).totalDuration, try rebucketed(workouts[3], into: power).totalDuration,
        ])
    }
}
