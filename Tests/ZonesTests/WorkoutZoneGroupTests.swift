import SensorCore
import Testing
import Zones

@Suite struct WorkoutZoneGroupTests {
    /// Zones 0 < 128 <= 1 < 141 <= 2 < 154 <= 3 < 167 <= 4 (age 40, resting 50).
    static let fiveZones = try! AthleteProfile(age: 40, restingHeartRate: 50).heartRateZoneConfiguration()
    /// Zones 0 < 110 <= 1 < 120 <= 2 < 130 <= 3 < 140 <= 4 < 150 <= 5 < 165 <= 6.
    static let sevenZones = try! WorkoutZoneConfiguration(
        quantityType: .heartRate, boundaryValues: [110, 120, 130, 140, 150, 165])

    static func heartRate(_ value: Double, at seconds: Int) -> Sample {
        Sample(sensor: SensorID(0), type: .heartRate, value: value, time: .seconds(seconds))
    }

    @Test func rebucketingSortsTheSameSamplesIntoOtherZones() throws {
        // One sample a second for 5 s, each credited 1 s (the next sample cuts the 5 s hold).
        let samples = [125.0, 135, 150, 160, 175].enumerated().map { Self.heartRate($1, at: $0) }
        let timeline = try WorkoutTimeline(end: .seconds(5))
        // Five zones: 125 -> 0, 135 -> 1, 150 -> 2, 160 -> 3, 175 -> 4.
        let five = WorkoutZoneGroup(rebucketing: samples, into: Self.fiveZones, timeline: timeline)
        #expect(five.durations == [1, 1, 1, 1, 1].map { .seconds($0) })
        // Seven zones: 125 -> 2, 135 -> 3, 150 -> 5 (on the boundary), 160 -> 5, 175 -> 6.
        let seven = WorkoutZoneGroup(rebucketing: samples, into: Self.sevenZones, timeline: timeline)
        #expect(seven.durations == [0, 0, 1, 1, 0, 2, 1].map { .seconds($0) })
        #expect(seven.configuration == Self.sevenZones)
    }

    /// What the live classifier refuses is skipped; a NaN value is a hold end, as `endHold(at:)` is live.
    @Test func rebucketingSkipsWhatTheLiveClassifierRefusesAndEndsHoldsAtNaN() throws {
        let samples = [
            Self.heartRate(150, at: 1),  // before the start at 2 s
            Self.heartRate(130, at: 2),
            Sample(sensor: SensorID(1), type: .cyclingPower, value: 400, time: .seconds(3)),  // another type
            Self.heartRate(.nan, at: 4),  // a hold end: 130 stops counting
            Self.heartRate(170, at: 6),
            Self.heartRate(150, at: 5),  // out of order
            Self.heartRate(150, at: 12),  // after the end
        ]
        let timeline = try WorkoutTimeline(start: .seconds(2), end: .seconds(10), pauses: [Duration.seconds(7)..<Duration.seconds(8)])
        let group = WorkoutZoneGroup(rebucketing: samples, into: Self.fiveZones, timeline: timeline)
        // 130 credits [2, 4), to the hold end: 2 s in zone 1. 170 holds [6, 11), less the pause [7, 8),
        // cut at 10: 3 s in zone 4.
        #expect(group.durations == [0, 2, 0, 0, 3].map { .seconds($0) })
        #expect(timeline.activeDuration == .seconds(7))
    }

    @Test func totalsSumGroupsWithTheSameZones() throws {
        let samples = [125.0, 135, 150, 160, 175].enumerated().map { Self.heartRate($1, at: $0) }
        let timeline = try WorkoutTimeline(end: .seconds(5))
        let recordedWithFive = WorkoutZoneGroup(rebucketing: samples, into: Self.fiveZones, timeline: timeline)
        let recordedWithSeven = try WorkoutZoneGroup(
            configuration: Self.sevenZones.withSource(.user), durations: [0, 0, 0, 60, 0, 30, 0].map { .seconds($0) })

        // Different zones do not add up: one total per configuration.
        #expect(throws: WorkoutZoneGroupError.differentZones) { try recordedWithFive.adding(recordedWithSeven) }
        let mixed = WorkoutZoneGroup.totals(of: [recordedWithFive, recordedWithSeven, recordedWithFive])
        #expect(mixed.count == 2)
        #expect(mixed[0].durations == [2, 2, 2, 2, 2].map { .seconds($0) })
        #expect(mixed[1] == recordedWithSeven)

        // Re-bucketed into seven zones, the first workout adds to the second (sources may differ).
        let rebucketed = WorkoutZoneGroup(rebucketing: samples, into: Self.sevenZones, timeline: timeline)
        let totals = WorkoutZoneGroup.totals(of: [rebucketed, recordedWithSeven])
        #expect(totals.count == 1)
        #expect(totals[0].durations == [0, 0, 1, 61, 0, 32, 1].map { .seconds($0) })
        #expect(totals[0].totalDuration == .seconds(95))
        #expect(try rebucketed.adding(recordedWithSeven) == totals[0])
        #expect(WorkoutZoneGroup.totals(of: []).isEmpty)
    }

    @Test func storedDurationsAreChecked() {
        #expect(throws: WorkoutZoneGroupError.durationCount(expected: 5, actual: 2)) {
            try WorkoutZoneGroup(configuration: Self.fiveZones, durations: [.zero, .zero])
        }
        #expect(throws: WorkoutZoneGroupError.negativeDuration(zoneIndex: 1, duration: .seconds(-1))) {
            try WorkoutZoneGroup(configuration: Self.fiveZones, durations: [0, -1, 0, 0, 0].map { .seconds($0) })
        }
        #expect(WorkoutZoneGroup(configuration: Self.fiveZones).durations == Array(repeating: .zero, count: 5))
    }

    @Test func zoneDurationsPairEachZoneWithItsTime() throws {
        let group = try WorkoutZoneGroup(configuration: Self.fiveZones, durations: [0, 90, 0, 0, 1].map { .seconds($0) })
        #expect(group.zoneDurations.map(\.zone) == Self.fiveZones.zones)
        #expect(group.zoneDurations.map(\.duration) == group.durations)
        #expect(group.zoneDuration(ofZone: 1) == WorkoutZoneDuration(zone: Self.fiveZones.zones[1], duration: .seconds(90)))
        #expect(group.jsonValue["zoneDurations"]?.arrayValue?[1].serialized == #"{"index":1,"duration":90}"#)
        #expect(group.jsonValue["configuration"] == Self.fiveZones.jsonValue)
    }

    @Test func timelinesMustBeInOrder() throws {
        #expect(throws: WorkoutTimelineError.endBeforeStart(start: .seconds(5), end: .seconds(4))) {
            try WorkoutTimeline(start: .seconds(5), end: .seconds(4))
        }
        #expect(throws: WorkoutTimelineError.pauseOutOfOrder(index: 0, pause: Duration.seconds(1)..<Duration.seconds(3))) {
            try WorkoutTimeline(start: .seconds(2), end: .seconds(10), pauses: [Duration.seconds(1)..<Duration.seconds(3)])
        }
        #expect(throws: WorkoutTimelineError.pauseOutOfOrder(index: 1, pause: Duration.seconds(4)..<Duration.seconds(6))) {
            try WorkoutTimeline(end: .seconds(10), pauses: [Duration.seconds(3)..<Duration.seconds(5), Duration.seconds(4)..<Duration.seconds(6)])
        }
        #expect(throws: WorkoutTimelineError.pauseOutOfOrder(index: 0, pause: Duration.seconds(9)..<Duration.seconds(11))) {
            try WorkoutTimeline(end: .seconds(10), pauses: [Duration.seconds(9)..<Duration.seconds(11)])
        }
        // Touching pauses and a pause up to the end are fine.
        let timeline = try WorkoutTimeline(
            end: .seconds(10), pauses: [Duration.seconds(3)..<Duration.seconds(5), Duration.seconds(5)..<Duration.seconds(6), Duration.seconds(8)..<Duration.seconds(10)])
        #expect(timeline.activeDuration == .seconds(5))
    }
}
