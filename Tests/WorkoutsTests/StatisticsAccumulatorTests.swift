import Foundation
import SensorCore
import Testing
import Workouts
import Zones

@Suite struct StatisticsAccumulatorTests {
    func sample(_ type: QuantityType, _ value: Double, at seconds: Double) -> Sample {
        Sample(sensor: SensorID(1), type: type, value: value, time: .milliseconds(Int64(seconds * 1000)))
    }

    @Test func powerEnergyIsHeldPowerOverActiveTime() {
        var a = StatisticsAccumulator(start: .zero)
        a.add(sample(.cyclingPower, 100, at: 0))  // 100 W for 1 s
        a.add(sample(.cyclingPower, 200, at: 1))  // 200 W for 1 s
        a.add(sample(.cyclingPower, 300, at: 2))  // 300 W for 1 s until the end
        a.pause(at: .seconds(3))
        a.add(sample(.cyclingPower, 999, at: 4))  // paused: not averaged; holds 4..7, active from 5
        a.resume(at: .seconds(5))
        a.end(at: .seconds(6))  // 999 W for 1 s after the resume
        let power = a.statistics.cyclingPower
        #expect(power?.average == 200)
        #expect(power?.maximum == 300)
        #expect(power?.count == 3)
        #expect(power?.energy == 1.599)  // (100 + 200 + 300 + 999) W·s / 1000
        #expect(power?.normalized == nil)  // fewer than 30 seconds
    }

    @Test func powerHoldIsBounded() {
        var a = StatisticsAccumulator(start: .zero, powerHold: .seconds(3))
        a.add(sample(.cyclingPower, 100, at: 0))
        a.add(sample(.cyclingPower, 100, at: 10))  // 7 s of dropout after the 3 s hold: no energy there
        a.end(at: .seconds(11))
        #expect(a.statistics.cyclingPower?.energy == 0.4)
    }

    @Test func normalizedPower() {
        var steady = StatisticsAccumulator(start: .zero)
        for t in 0..<120 { steady.add(sample(.cyclingPower, 200, at: Double(t))) }
        steady.end(at: .seconds(120))
        #expect(steady.statistics.cyclingPower?.normalized == 200)

        // 60 s at 100 W then 60 s at 300 W: the held values at whole seconds are 60 × 100, 60 × 300.
        var blocks = StatisticsAccumulator(start: .zero)
        for t in 0..<120 { blocks.add(sample(.cyclingPower, t < 60 ? 100 : 300, at: Double(t))) }
        blocks.end(at: .seconds(120))
        let values = (0..<120).map { $0 < 60 ? 100.0 : 300.0 }
        var fourth = 0.0
        for i in 29..<120 {
            let rolling = values[(i - 29)...i].reduce(0, +) / 30
            fourth += pow4(rolling)
        }
        let expected = (fourth / 91).squareRoot().squareRoot()
        let np = blocks.statistics.cyclingPower?.normalized ?? 0
        #expect(abs(np - expected) < 1e-9)
        #expect(np > 200)  // variability makes NP exceed the 200 W average
    }

    func pow4(_ x: Double) -> Double { x * x * x * x }

    @Test func rmssdFromSuccessiveRRIntervals() {
        var a = StatisticsAccumulator(start: .zero)
        for (i, rr) in [1.0, 1.1, 1.0, 3.0, 0.9, 0.8].enumerated() { a.add(sample(.rrInterval, rr, at: Double(i))) }
        a.end(at: .seconds(6))  // judges the beats still waiting for neighbours
        // Pairs: (1.0, 1.1) 100 ms, (1.1, 1.0) -100 ms; 3.0 is an artefact (outside 0.25-2.5 s)
        // and breaks the chain; (0.9, 0.8) -100 ms. RMSSD = sqrt((100² + 100² + 100²) / 3) = 100 ms.
        let stats = a.statistics
        #expect(stats.rrArtefactCount == 1)
        #expect(abs((stats.rmssd ?? 0) - 100) < 1e-9)
        #expect(stats.rrPairCount == 3)
    }

    @Test func strapEnergyCountsAcrossTheCounterWrap() {
        var a = StatisticsAccumulator(start: .zero)
        a.add(sample(.energyExpended, 65530, at: 0))
        a.add(sample(.energyExpended, 65535, at: 10))
        a.add(sample(.energyExpended, 5, at: 20))  // wrapped: 6 more
        #expect(a.statistics.energyExpended == 11)
    }

    @Test func cadenceAveragesOnlyWhilePedalling() {
        var a = StatisticsAccumulator(start: .zero)
        for (i, rpm) in [90.0, 0, 0, 80].enumerated() { a.add(sample(.cyclingCadence, rpm, at: Double(i))) }
        #expect(a.statistics.cadence?.average == 85)
        #expect(a.statistics.cadence?.count == 2)
    }
}

/// Times no real workout has: years apart, at the ends of what a `Duration` of nanoseconds holds.
/// They once trapped (`Int64` overflow converting to nanoseconds); they must not, and the work per
/// sample stays bounded by the hold.
@Suite struct ExtremeTimesTests {
    static func power(_ value: Double, at time: Duration) -> Sample {
        Sample(sensor: SensorID(1), type: .cyclingPower, value: value, time: time)
    }

    static let year = Duration.seconds(365 * 86_400)

    @Test(arguments: [100, 250])
    func powerSamplesYearsApartCountOnlyTheirHolds(years: Int64) {
        var a = StatisticsAccumulator(start: .zero)
        a.add(Self.power(100, at: .zero))
        a.add(Self.power(200, at: Self.year * years))
        a.end(at: Self.year * years + .seconds(1))
        let power = a.statistics.cyclingPower
        // 100 W for its 3 s hold, 200 W for the last second; the years between count for nothing.
        #expect(power?.energy == 0.5)
        #expect(power?.average == 150)
    }

    @Test(arguments: [300, 290_000])
    func powerSamplesBeyondNanosecondsDoNotTrap(years: Int64) {
        var a = StatisticsAccumulator(start: .zero)
        a.add(Self.power(100, at: .zero))
        a.add(Self.power(200, at: Self.year * years))
        a.end(at: Self.year * years + .seconds(1))
        // Past about 292 years times stop at Int64.max nanoseconds: the last second collapses to
        // nothing, and the first sample's hold is all that counts.
        #expect(a.statistics.cyclingPower?.energy == 0.3)
        #expect(a.statistics.cyclingPower?.average == 150)
    }

    @Test func theEndsOfInt64SecondsDoNotTrap() {
        var a = StatisticsAccumulator(start: .zero, powerHold: .seconds(Int64.max))
        a.add(Self.power(100, at: .zero))
        a.pause(at: .seconds(Int64.max / 2))
        a.resume(at: .seconds(Int64.max - 1))
        a.add(Self.power(200, at: .seconds(Int64.max)))
        a.end(at: .seconds(Int64.max))
        #expect(a.statistics.cyclingPower?.count == 2)
        // The first sample holds for at most the longest workout, 7 days: 100 W × 604,800 s.
        #expect(a.statistics.cyclingPower?.energy == 60_480)
    }

    @Test func aBuilderFinishesAWorkoutCenturiesLong() throws {
        let span = Self.year * 250
        var machine = WorkoutStateMachine(activityType: .cycling)
        try machine.setCustomZoneConfiguration(
            WorkoutZoneConfiguration(quantityType: .cyclingPower, boundaryValues: [138, 188, 225, 263, 300]))
        try machine.beginCollection(at: .zero, date: Date(timeIntervalSince1970: 1_700_000_000))
        machine.add(Self.power(150, at: .seconds(1)))
        machine.add(Self.power(250, at: span))
        machine.tick(at: span)
        try machine.endCollection(at: span + .seconds(2))
        let workout = try machine.finishWorkout()
        #expect(workout.duration == span + .seconds(2))
        #expect(workout.statistics.cyclingPower?.energy == 0.95)  // 150 W × 3 s + 250 W × 2 s
        let zones = try #require(workout.zoneGroupsByType[.cyclingPower]).durations
        #expect(zones == [.zero, .seconds(3), .zero, .seconds(2), .zero, .zero])
    }
}

/// RR artefacts (issue 32, item 4): a missed beat and a split beat barely move RMSSD.
@Suite struct RRArtefactTests {
    /// About 300 beats near 1,000 ms with natural variability (a breathing rhythm plus noise from
    /// a fixed seed), giving an RMSSD near 24 ms.
    static func cleanSeries() -> [Double] {
        var state: UInt64 = 0x5EED
        func noise() -> Double {  // uniform in -1...1 (a linear congruential generator)
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53) * 2 - 1
        }
        return (0..<300).map { i in 1.0 + 0.03 * sin(Double(i) / 4) + 0.028 * noise() }
    }

    static func statistics(_ series: [Double]) -> WorkoutStatistics {
        var a = StatisticsAccumulator(start: .zero)
        var time = 0.0
        for rr in series {
            time += rr
            a.add(Sample(sensor: SensorID(1), type: .rrInterval, value: rr, time: .milliseconds(Int64(time * 1000))))
        }
        a.end(at: .milliseconds(Int64(time * 1000) + 1))
        return a.statistics
    }

    /// RMSSD without any filter, to show what the artefacts do unfiltered.
    static func naiveRMSSD(_ series: [Double]) -> Double {
        let differences = zip(series.dropFirst(), series).map { ($0 - $1) * 1000 }
        return (differences.map { $0 * $0 }.reduce(0, +) / Double(differences.count)).squareRoot()
    }

    @Test func aMissedAndASplitBeatLeaveRMSSDWithinTenPercent() throws {
        let clean = Self.cleanSeries()
        var faulty = clean
        faulty.replaceSubrange(200...201, with: [faulty[200] + faulty[201]])  // missed: one of ~2,000 ms
        faulty.replaceSubrange(100...100, with: [faulty[100] / 2, faulty[100] / 2])  // split: two of ~500 ms
        let cleanRMSSD = try #require(Self.statistics(clean).rmssd)
        #expect(cleanRMSSD > 20 && cleanRMSSD < 28)
        // Unfiltered, the two artefacts more than double it (the issue measured 57 ms against 24).
        #expect(Self.naiveRMSSD(faulty) > 2 * cleanRMSSD)
        let stats = Self.statistics(faulty)
        let rmssd = try #require(stats.rmssd)
        #expect(abs(rmssd - cleanRMSSD) / cleanRMSSD < 0.1)
        #expect(Self.statistics(clean).rrArtefactCount == 0)
        #expect(stats.rrArtefactCount == 3)
        #expect(stats.rrIntervalCount == 300)
        #expect(stats.rrArtefactShare == 0.01)
    }

    /// The verdicts wait for the beats after them, so the live figure leaves the last few out
    /// until the end judges them; nothing depends on when the statistics are read.
    @Test func theLastBeatsAreJudgedAtTheEnd() {
        var a = StatisticsAccumulator(start: .zero)
        for (i, rr) in [1.0, 1.02, 0.98, 1.01, 0.99, 1.0, 1.03, 0.97].enumerated() {
            a.add(Sample(sensor: SensorID(1), type: .rrInterval, value: rr, time: .seconds(i)))
        }
        #expect(a.statistics.rrIntervalCount == 3)  // judged once 5 beats followed
        a.end(at: .seconds(9))
        #expect(a.statistics.rrIntervalCount == 8)
        #expect(a.statistics.rrPairCount == 7)
    }
}
