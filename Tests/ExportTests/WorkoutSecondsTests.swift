import Export
import Foundation
import SensorCore
import SensorTestSupport
import Testing
import Workouts
import Zones

@Suite struct WorkoutSecondsTests {
    /// A workout made by hand: samples at odd times, a pause, a sample during the pause.
    static func workout(samples: [(Double, QuantityType, Double)], end: Double, pauses: [Range<Duration>] = []) -> Workout {
        Workout(
            startDate: CSVEncoderTests.startDate, start: .seconds(10), end: .seconds(10 + end),
            activeDuration: .seconds(end), pauses: pauses, activityType: .cycling, statistics: WorkoutStatistics(),
            zoneGroupsByType: [:], activities: [], laps: [.seconds(10)..<(.seconds(10 + end))], events: [],
            zoneUpdates: [],
            samples: samples.map { Sample(sensor: SensorID(1), type: $0.1, value: $0.2, time: .milliseconds(Int64((10 + $0.0) * 1000))) },
            sensors: [:])
    }

    @Test func aSampleHoldsUntilTheNextOrForItsMaximumHold() {
        let workout = Self.workout(
            samples: [(0.5, .heartRate, 100), (2.5, .heartRate, 110), (2.7, .cyclingPower, 200), (20, .heartRate, .nan)],
            end: 10.5)
        let seconds = WorkoutSeconds(workout).seconds
        // Of 0 ... 10 (the last second partly covered), those at which a value holds.
        #expect(seconds.map(\.elapsed) == [1, 2, 3, 4, 5, 6, 7])
        #expect(seconds.map(\.heartRate) == [100, 100, 110, 110, 110, 110, 110])
        // Power holds 3 s: 2.7 ..< 5.7.
        #expect(seconds.map(\.power) == [nil, nil, 200, 200, 200, nil, nil])
    }

    @Test func pausedSecondsKeepTheirValuesButNoZone() throws {
        var workout = Self.workout(
            samples: [(0, .heartRate, 100), (1, .heartRate, 150), (2, .heartRate, 150), (3, .heartRate, 100)], end: 4,
            pauses: [.seconds(11)..<(.seconds(13))])
        let configuration = try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [120, 140])
        workout.zoneGroupsByType = [.heartRate: WorkoutZoneGroup(configuration: configuration)]
        let seconds = WorkoutSeconds(workout).seconds
        #expect(seconds.map(\.isActive) == [true, false, false, true])
        #expect(seconds.map(\.heartRate) == [100, 150, 150, 100])
        #expect(seconds.map(\.heartRateZone) == [0, nil, nil, 0])
    }

    @Test func aGapWhereNothingHoldsHasNoSeconds() {
        let workout = Self.workout(
            samples: [(0, .heartRate, 100), (1, .heartRate, 101), (60, .cyclingPower, 200), (61.5, .cyclingPower, 210)],
            end: 70)
        let seconds = WorkoutSeconds(workout)
        #expect(seconds.seconds.map(\.elapsed) == [0, 1, 2, 3, 4, 5, 60, 61, 62, 63, 64])
        #expect(seconds.seconds.map(\.power) == [nil, nil, nil, nil, nil, nil, 200, 200, 210, 210, 210])
        #expect(seconds.indices(from: 3, to: 62) == 3..<8)
        #expect(seconds.indices(from: 6, to: 60) == 6..<6)
        #expect(seconds.indices(from: 65, to: 70) == 11..<11)
    }
}
