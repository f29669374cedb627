import SensorCore
import Testing
import Zones

/// Drains a classifier's updates as `(time in s, previous, current)` for compact expectations.
func drain(_ classifier: inout ZoneClassifier) -> [ZoneUpdate] {
    var updates: [ZoneUpdate] = []
    while let update = classifier.nextUpdate() { updates.append(update) }
    return updates
}

@Suite struct ZoneClassifierTests {
    /// Age 40, resting 50: zones 0 < 128 <= 1 < 141 <= 2 < 154 <= 3 < 167 <= 4.
    static let heartRate = try! AthleteProfile(age: 40, restingHeartRate: 50).heartRateZoneConfiguration()

    /// A short heart-rate workout with a pause and a dropout, worked by hand. Hold 5 s (the default
    /// for heart rate), start 0 s, pause 12 s to 17 s, end 30 s: 25 s of active time.
    ///
    ///   sample  value  zone  credited                                                     seconds
    ///    0 s    125    0     [0, 2): cut by the next sample                                2
    ///    2 s    128    1     [2, 4): 128 is exactly a boundary, so zone 1                  2
    ///    4 s    150    2     [4, 9): the hold ends at 9 s, before the next sample at 10    5
    ///                        [9, 10) is a gap: no zone (the strap dropped out)
    ///   10 s    150    2     [10, 11)                                                      1
    ///   11 s    170    4     [11, 12): the pause at 12 s cuts it (the hold ran to 16)      1
    ///   14 s    155    3     arrives while paused; its hold [14, 19) counts after the
    ///                        resume at 17 s: [17, 19)                                      2
    ///                        [19, 26) is a gap: the hold expired, no sample until 26 s
    ///   26 s    130    1     [26, 30): the end at 30 s cuts the hold at 31 s               4
    ///
    /// Zone totals: 0 -> 2 s, 1 -> 2 + 4 = 6 s, 2 -> 5 + 1 = 6 s, 3 -> 2 s, 4 -> 1 s; 17 s in all,
    /// which is the 25 s of active time less the 1 s and 7 s gaps.
    @Test func handWorkedWorkoutWithAPauseAndADropout() throws {
        var classifier = ZoneClassifier(configuration: Self.heartRate)
        #expect(classifier.maximumHold == .seconds(5))
        try classifier.add(125, at: .seconds(0))
        try classifier.add(128, at: .seconds(2))
        try classifier.add(150, at: .seconds(4))
        classifier.tick(at: .seconds(9))  // the hold ends at 9 s exactly: not stale yet
        #expect(classifier.currentZoneIndex == 2)
        classifier.tick(at: .milliseconds(9500))  // now it is
        #expect(classifier.currentZoneIndex == nil)
        try classifier.add(150, at: .seconds(10))
        try classifier.add(170, at: .seconds(11))
        try classifier.pause(at: .seconds(12))
        try classifier.add(155, at: .seconds(14))
        try classifier.resume(at: .seconds(17))
        classifier.tick(at: .seconds(20))  // the 14 s sample's hold ended at 19 s
        try classifier.add(130, at: .seconds(26))
        try classifier.end(at: .seconds(30))

        let seconds: [Duration] = [2, 6, 6, 2, 1].map { .seconds($0) }
        #expect(classifier.zoneGroup.durations == seconds)
        #expect(classifier.zoneGroup.totalDuration == .seconds(17))

        // Nine changes of the current zone, each with the totals credited up to it.
        let updates = drain(&classifier)
        let expected: [(time: Int, previous: Int?, current: Int?, lastSample: Int, totals: [Int])] = [
            (0, nil, 0, 0, [0, 0, 0, 0, 0]),  // the first sample
            (2, 0, 1, 2, [2, 0, 0, 0, 0]),
            (4, 1, 2, 4, [2, 2, 0, 0, 0]),
            (9, 2, nil, 4, [2, 2, 5, 0, 0]),  // stale: dated at the end of the 4 s sample's hold
            (10, nil, 2, 10, [2, 2, 5, 0, 0]),
            (11, 2, 4, 11, [2, 2, 6, 0, 0]),
            (14, 4, 3, 14, [2, 2, 6, 0, 1]),  // while paused: zones follow the sensor, time does not
            (19, 3, nil, 14, [2, 2, 6, 2, 1]),  // stale again after [17, 19) counted
            (26, nil, 1, 26, [2, 2, 6, 2, 1]),
        ]
        #expect(updates.count == expected.count)
        for (update, want) in zip(updates, expected) {
            #expect(update.time == .seconds(want.time))
            #expect(update.previousZoneIndex == want.previous)
            #expect(update.currentZoneIndex == want.current)
            #expect(update.lastSampleTime == .seconds(want.lastSample))
            #expect(update.zoneGroup.durations == want.totals.map { .seconds($0) })
            #expect(update.quantityType == .heartRate)
            #expect(update.previous?.duration == want.previous.map { .seconds(want.totals[$0]) })
            #expect(update.current?.zone.index == want.current)
        }
    }

    @Test(arguments: [2, 5, 8])
    func classifiesExtremeValuesLikeTheConfiguration(boundaryCount: Int) throws {
        let configuration = try WorkoutZoneConfiguration(
            quantityType: .cyclingPower, boundaryValues: (1...boundaryCount).map { 100 * Double($0) })
        var values: [Double] = [
            -.infinity, -.greatestFiniteMagnitude, -1, -0.0, 0, .leastNonzeroMagnitude, 99.999_999_999_999_99,
            .greatestFiniteMagnitude, .infinity,
        ]
        values += configuration.boundaryValues.flatMap { [$0.nextDown, $0, $0.nextUp] }
        var classifier = ZoneClassifier(configuration: configuration)
        for (index, value) in values.enumerated() {
            try classifier.add(value, at: .seconds(index))
            #expect(classifier.currentZoneIndex == configuration.zoneIndex(for: value), "\(value)")
        }
        #expect(configuration.zoneIndex(for: .greatestFiniteMagnitude) == boundaryCount)
        #expect(configuration.zoneIndex(for: 100.0.nextDown) == 0)
    }

    @Test func updatesDoNotDependOnTicks() throws {
        // The same workout without ticks: the next samples notice the stale sensor instead.
        func run(ticks: Bool) throws -> [ZoneUpdate] {
            var classifier = ZoneClassifier(configuration: Self.heartRate)
            try classifier.add(150, at: .seconds(0))
            if ticks { classifier.tick(at: .seconds(6)) }
            try classifier.add(150, at: .seconds(8))
            if ticks { classifier.tick(at: .seconds(30)) }
            try classifier.end(at: .seconds(40))
            return drain(&classifier)
        }
        let withTicks = try run(ticks: true)
        #expect(withTicks == (try run(ticks: false)))
        // 0 s: nil -> 2; 5 s: 2 -> nil; 8 s: nil -> 2; 13 s: 2 -> nil (noticed by the tick or by the end).
        #expect(withTicks.map(\.time) == [0, 5, 8, 13].map { .seconds($0) })
        #expect(withTicks.map(\.currentZoneIndex) == [2, nil, 2, nil])
    }

    @Test func aSampleAtTheEndOfTheHoldIsNoGap() throws {
        var classifier = ZoneClassifier(configuration: Self.heartRate, maximumHold: .seconds(2))
        try classifier.add(150, at: .seconds(0))
        try classifier.add(150, at: .seconds(2))  // exactly when the first hold ends
        try classifier.end(at: .seconds(4))
        #expect(drain(&classifier).count == 1)
        #expect(classifier.zoneGroup.totalDuration == .seconds(4))
    }

    @Test func durationsAreExactWithoutFloatingPointDrift() throws {
        // 10,000 samples 0.1 s apart: 0.1 has no exact binary fraction, yet the total is exactly 1000 s.
        var classifier = ZoneClassifier(configuration: Self.heartRate)
        for index in 0..<10_000 {
            try classifier.add(index % 2 == 0 ? 130 : 145, at: .milliseconds(100 * index))
        }
        try classifier.end(at: .seconds(1000))
        #expect(classifier.zoneGroup.durations == [.zero, .seconds(500), .seconds(500), .zero, .zero])
        // And to the attosecond: a third of a second is not a whole number of nanoseconds.
        var exact = ZoneClassifier(configuration: Self.heartRate)
        let third = Duration(secondsComponent: 0, attosecondsComponent: 333_333_333_333_333_333)
        for index in 0..<3 { try exact.add(150, at: third * index) }
        try exact.end(at: third * 3)
        #expect(exact.zoneGroup.durations[2] == third * 3)
    }

    @Test func refusedEventsAreTypedErrorsAndChangeNothing() throws {
        var classifier = ZoneClassifier(configuration: Self.heartRate, start: .seconds(10))
        #expect(throws: ZoneClassifierError.outOfOrder(time: .seconds(9), latest: .seconds(10))) {
            try classifier.add(150, at: .seconds(9))
        }
        try classifier.add(150, at: .seconds(10))
        #expect(throws: ZoneClassifierError.notANumber(time: .seconds(11))) {
            try classifier.add(.nan, at: .seconds(11))
        }
        #expect(throws: ZoneClassifierError.wrongQuantityType(.cyclingPower, expected: .heartRate)) {
            try classifier.add(Sample(sensor: SensorID(1), type: .cyclingPower, value: 200, time: .seconds(11)))
        }
        #expect(throws: ZoneClassifierError.notPaused(time: .seconds(11))) { try classifier.resume(at: .seconds(11)) }
        try classifier.pause(at: .seconds(12))
        #expect(classifier.isPaused)
        #expect(throws: ZoneClassifierError.alreadyPaused(time: .seconds(13))) { try classifier.pause(at: .seconds(13)) }
        #expect(throws: ZoneClassifierError.outOfOrder(time: .seconds(11), latest: .seconds(12))) {
            try classifier.resume(at: .seconds(11))
        }
        try classifier.add(Sample(sensor: SensorID(0), type: .heartRate, value: 170, time: .seconds(12)))
        try classifier.end(at: .seconds(20))
        #expect(classifier.hasEnded)
        #expect(throws: ZoneClassifierError.ended(time: .seconds(21))) { try classifier.add(150, at: .seconds(21)) }
        #expect(throws: ZoneClassifierError.ended(time: .seconds(21))) { try classifier.end(at: .seconds(21)) }
        #expect(throws: ZoneClassifierError.ended(time: .seconds(21))) { try classifier.pause(at: .seconds(21)) }
        classifier.tick(at: .seconds(100))  // harmless after the end
        // Only [10, 12) counted: the refused events left no trace.
        #expect(classifier.zoneGroup.durations == [.zero, .zero, .seconds(2), .zero, .zero])
        // 10 s: zone 2; 12 s: zone 4 (while paused); 17 s: the 12 s hold expired before the end.
        #expect(drain(&classifier).map(\.currentZoneIndex) == [2, 4, nil])
    }

    @Test func zoneGroupAtATimeCountsTheHoldSoFar() throws {
        var classifier = ZoneClassifier(configuration: Self.heartRate)
        try classifier.add(150, at: .seconds(0))
        #expect(classifier.zoneGroup.totalDuration == .zero)
        #expect(classifier.zoneGroup(at: .seconds(3)).durations[2] == .seconds(3))
        #expect(classifier.zoneGroup(at: .seconds(8)).durations[2] == .seconds(5))
        // An activity boundary at 3 s: the two activities split the 5 s hold 3 + 2.
        let first = classifier.zoneGroup(at: .seconds(3))
        try classifier.end(at: .seconds(8))
        let second = try classifier.zoneGroup.subtracting(first)
        #expect(second.durations[2] == .seconds(2))
        #expect(throws: WorkoutZoneGroupError.negativeDuration(zoneIndex: 2, duration: .seconds(-2))) {
            try first.subtracting(classifier.zoneGroup)
        }
    }
}
