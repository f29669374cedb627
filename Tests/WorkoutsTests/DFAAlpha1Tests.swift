import Foundation
import SensorCore
import Testing
import Workouts
import Zones

/// DFA α1 (DESIGN 3, "DFA α1"): the method against the definition and series of known scaling,
/// the rolling windows, artefacts, pauses and the thresholds.
@Suite struct DFAAlpha1Tests {
    /// A standard normal value (Box-Muller) from the seeded generator.
    static func gaussian(_ random: inout SplitMix64) -> Double {
        let u = max(random.uniform(0, 1), .leastNonzeroMagnitude)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * random.uniform(0, 1))
    }

    /// Uncorrelated RR intervals: 600 ms ± 20 ms of white noise.
    static func whiteNoise(_ count: Int, seed: UInt64) -> [Double] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in 0.6 + 0.02 * gaussian(&random) }
    }

    /// Integrated noise (a random walk, Brownian-like) around 600 ms: steps of 1 ms.
    static func randomWalk(_ count: Int, seed: UInt64) -> [Double] {
        var random = SplitMix64(seed: seed)
        var level = 0.0
        return (0..<count).map { _ in
            level += 0.001 * gaussian(&random)
            return 0.6 + level
        }
    }

    // MARK: the method

    /// x = 1 3 2 4 3 5 4 6 (mean 3.5): the profile is −2.5 −3 −4.5 −4 −4.5 −3 −2.5 0. Boxes of 4:
    /// (−2.5 −3 −4.5 −4) has the line slope −0.6 and residuals 0.1 0.2 −0.7 0.4; (−4.5 −3 −2.5 0)
    /// slope 1.4 and the same residuals: F(4)² = 2 × 0.70 / 8 = 7/40. Boxes of 3 (the last two
    /// points left out): residuals −1/6 1/3 −1/6 and 1/3 −2/3 1/3: F(3)² = (1/6 + 2/3) / 6 = 5/36.
    /// Boxes of 2 fit exactly: F(2) = 0.
    @Test func aTinySeriesGivesTheFluctuationsWorkedOutByHand() throws {
        let series: [Double] = [1, 3, 2, 4, 3, 5, 4, 6]
        let profile = DFAAlpha1.profile(of: series)
        #expect(zip(profile, [-2.5, -3, -4.5, -4, -4.5, -3, -2.5, 0]).allSatisfy { abs($0 - $1) < 1e-12 })
        let f4 = try #require(DFAAlpha1.fluctuation(ofProfile: profile, boxSize: 4))
        let f3 = try #require(DFAAlpha1.fluctuation(ofProfile: profile, boxSize: 3))
        #expect(abs(f4 * f4 - 7.0 / 40) < 1e-12)
        #expect(abs(f3 * f3 - 5.0 / 36) < 1e-12)
        #expect(try #require(DFAAlpha1.fluctuation(ofProfile: profile, boxSize: 2)) < 1e-12)
        #expect(DFAAlpha1.fluctuation(ofProfile: profile, boxSize: 9) == nil)
        // α over n = 3...4 is the slope through the two points: ln(F(4) / F(3)) / ln(4 / 3) ≈ 0.4017.
        let alpha = try #require(DFAAlpha1.alpha(of: series, boxSizes: 3...4))
        #expect(abs(alpha - log((7.0 / 40).squareRoot() / (5.0 / 36).squareRoot()) / log(4.0 / 3)) < 1e-12)
        #expect(abs(alpha - 0.4017) < 1e-4)
    }

    @Test func tooShortOrConstantSeriesGiveNoAlpha() {
        #expect(DFAAlpha1.alpha(of: Array(repeating: 0.6, count: 200)) == nil)
        #expect(DFAAlpha1.alpha(of: Self.whiteNoise(15, seed: 1)) == nil)
        #expect(DFAAlpha1.alpha(of: Self.whiteNoise(16, seed: 1)) != nil)
    }

    /// The line fitted through points, worked out by hand: (0, 1), (1, 2), (2, 6) give slope 2.5 and
    /// intercept 0.5; fewer than two points or one x give none.
    @Test func theLeastSquaresLineOfPointsWorkedOutByHand() throws {
        let line = try #require(LeastSquaresLine(x: [0, 1, 2], y: [1, 2, 6]))
        #expect(abs(line.slope - 2.5) < 1e-12 && abs(line.intercept - 0.5) < 1e-12)
        #expect(LeastSquaresLine(x: [3], y: [1]) == nil)
        #expect(LeastSquaresLine(x: [3, 3, 3], y: [1, 2, 3]) == nil)
        #expect(LeastSquaresLine(x: [1, 2], y: [1]) == nil)
    }

    /// For uncorrelated intervals, F(n)² of DFA with linear detrending is proportional to
    /// (n² − 4) / n (Kantelhardt et al. 2001), not to n: the least-squares slope of its log over
    /// n = 4...16 is 0.583, the small-box bias of the uncorrected method Kubios and the thresholds'
    /// studies use. Long series of white noise give that, 0.5 plus the bias.
    static let whiteNoiseAlpha1 = 0.583

    @Test func whiteNoiseGivesOneHalfPlusTheSmallBoxBias() throws {
        let alphas = try (1...5).map { seed in try #require(DFAAlpha1.alpha(of: Self.whiteNoise(4000, seed: seed))) }
        for alpha in alphas { #expect(abs(alpha - Self.whiteNoiseAlpha1) < 0.04, "\(alphas)") }
        let mean = alphas.reduce(0, +) / Double(alphas.count)
        #expect(abs(mean - Self.whiteNoiseAlpha1) < 0.02, "\(mean)")
    }

    @Test func integratedNoiseGivesAboveOnePointTwo() throws {
        let alphas = try (1...5).map { seed in try #require(DFAAlpha1.alpha(of: Self.randomWalk(4000, seed: seed))) }
        for alpha in alphas { #expect(alpha > 1.2, "\(alphas)") }
    }

    @Test func theScaleOfTheIntervalsDoesNotMatter() throws {
        let series = Self.whiteNoise(500, seed: 7)
        let alpha = try #require(DFAAlpha1.alpha(of: series))
        let scaled = try #require(DFAAlpha1.alpha(of: series.map { $0 * 1000 + 5 }))
        #expect(abs(alpha - scaled) < 1e-9)
    }

    // MARK: windows

    /// Feeds `intervals` as one run, each arriving at its beat's end; the windows.
    static func windows(of intervals: [Double], into tracker: inout DFAAlpha1Windows, from start: Double = 0) -> [DFAAlpha1Window] {
        var found: [DFAAlpha1Window] = []
        var time = start
        for interval in intervals {
            time += interval
            found += tracker.add(interval, at: .milliseconds(Int64((time * 1000).rounded())))
        }
        return found
    }

    @Test func windowsOfTwoMinutesComeEveryFiveSecondsOfBeats() throws {
        var tracker = DFAAlpha1Windows()
        let intervals = Self.whiteNoise(1000, seed: 3)  // about 600 s
        var windows = Self.windows(of: intervals, into: &tracker)
        windows += tracker.endRun()
        let beatTime = intervals.reduce(0, +)
        // The first at 120 s of beats, then one each 5 s.
        #expect(windows.count == Int((beatTime - 120) / 5) + 1)
        #expect(tracker.refused == 0)
        let first = try #require(windows.first)
        #expect(abs(first.time.seconds - 120) < 1)
        #expect((195...205).contains(first.beats), "\(first.beats)")
        let mean = windows.map(\.alpha1).reduce(0, +) / Double(windows.count)
        #expect(abs(mean - Self.whiteNoiseAlpha1) < 0.05, "\(mean)")
        for window in windows { #expect(window.artefacts == 0) }
        // The window is α1 of the window's beats: the last one's equals the method on the last 120 s.
        let last = try #require(windows.last)
        var end = 0.0
        var ends: [Double] = []
        for interval in intervals { end += interval; ends.append(end) }
        let windowEnd = ends.last { abs($0 - last.time.seconds) < 0.0005 } ?? 0
        let inWindow = zip(intervals, ends).filter { $0.1 > windowEnd - 120 && $0.1 <= windowEnd + 0.0005 }.map(\.0)
        #expect(abs(try #require(DFAAlpha1.alpha(of: inWindow)) - last.alpha1) < 1e-9)
    }

    @Test func artefactsAreRemovedBelowFivePercentAndRefuseTheWindowAbove() throws {
        let clean = Self.whiteNoise(600, seed: 4)
        // A missed beat (two intervals as one) every 50 beats: 2 % artefacts.
        var few: [Double] = []
        var many: [Double] = []
        for (index, interval) in clean.enumerated() {
            if index % 50 == 25, let last = few.popLast() { few.append(last + interval) } else { few.append(interval) }
            if index % 10 == 5, let last = many.popLast() { many.append(last + interval) } else { many.append(interval) }
        }
        var tracker = DFAAlpha1Windows()
        let kept = Self.windows(of: few, into: &tracker) + tracker.endRun()
        #expect(!kept.isEmpty)
        #expect(kept.allSatisfy { $0.artefacts >= 3 && $0.artefacts <= 5 }, "\(kept.map(\.artefacts))")
        for window in kept { #expect(abs(window.alpha1 - Self.whiteNoiseAlpha1) < 0.25) }

        var refusing = DFAAlpha1Windows()
        let refused = Self.windows(of: many, into: &refusing) + refusing.endRun()
        #expect(refused.isEmpty)
        #expect(refusing.refused > 0)
    }

    @Test func noWindowSpansTheEndOfARun() {
        var tracker = DFAAlpha1Windows()
        // 100 s of beats, the run ends (a pause, a strap without contact), 100 s more: neither run
        // has the 120 s a window needs.
        var windows = Self.windows(of: Self.whiteNoise(166, seed: 5), into: &tracker)
        windows += tracker.endRun()
        windows += Self.windows(of: Self.whiteNoise(166, seed: 6), into: &tracker, from: 200)
        windows += tracker.endRun()
        #expect(windows.isEmpty)
        #expect(tracker.intervalCount == 332)

        var joined = DFAAlpha1Windows()
        let whole = Self.windows(of: Self.whiteNoise(166, seed: 5) + Self.whiteNoise(166, seed: 6), into: &joined) + joined.endRun()
        #expect(!whole.isEmpty)
    }

    @Test func aSilenceOfMoreThanFiveSecondsEndsTheRun() {
        // 100 s of beats, 10 s without any (a dropout), 100 s more.
        var tracker = DFAAlpha1Windows()
        var windows = Self.windows(of: Self.whiteNoise(166, seed: 5), into: &tracker)
        let resumed = Self.whiteNoise(166, seed: 5).reduce(0, +) + 10
        windows += Self.windows(of: Self.whiteNoise(166, seed: 6), into: &tracker, from: resumed)
        windows += tracker.endRun()
        #expect(windows.isEmpty)
    }

    @Test func fewBeatsGiveNoWindow() {
        // 120 s of beats at 40 count/min is 80 beats: fewer than the 100 a window needs.
        var tracker = DFAAlpha1Windows()
        var random = SplitMix64(seed: 9)
        let slow = (0..<200).map { _ in 1.5 + 0.02 * Self.gaussian(&random) }
        let windows = Self.windows(of: slow, into: &tracker) + tracker.endRun()
        #expect(windows.isEmpty)
        #expect(tracker.refused > 0)
    }

    // MARK: a workout

    static func workout(rr: [Double], pauses: [Range<Duration>] = [], heartRate: Double = 100) -> Workout {
        var samples: [Sample] = []
        var time = 0.0
        for interval in rr {
            time += interval
            let at = Duration.milliseconds(Int64((time * 1000).rounded()))
            samples.append(Sample(sensor: SensorID(1), type: .heartRate, value: heartRate, time: at))
            samples.append(Sample(sensor: SensorID(1), type: .rrInterval, value: interval, time: at))
        }
        let end = Duration.milliseconds(Int64((time * 1000).rounded()) + 1000)
        return Workout(
            startDate: Date(timeIntervalSince1970: 0), start: .zero, end: end, activeDuration: end, pauses: pauses,
            activityType: .cycling, statistics: WorkoutStatistics(), zoneGroupsByType: [:], activities: [], laps: [.zero..<end],
            events: [], zoneUpdates: [], samples: samples, sensors: [SensorID(1): "hr"])
    }

    @Test func aWorkoutsWindowsCarryTheHeldHeartRateAndStopAtPauses() throws {
        let rr = Self.whiteNoise(600, seed: 8)  // about 360 s
        let whole = Self.workout(rr: rr).dfaAlpha1()
        #expect(whole.points.count > 40)
        #expect(whole.points.allSatisfy { $0.heartRate == 100 && $0.power == nil })
        #expect(abs(try #require(whole.mean) - Self.whiteNoiseAlpha1) < 0.08)
        #expect(whole.intervalCount == 600)

        // A pause from 100 s to 110 s ends the run: the first window is 120 s of beats after it.
        let paused = Self.workout(rr: rr, pauses: [Duration.seconds(100)..<Duration.seconds(110)]).dfaAlpha1()
        let first = try #require(paused.points.first)
        #expect(first.offset >= 229, "\(first.offset)")
        #expect(paused.points.count < whole.points.count)
    }

    // MARK: thresholds

    @Test func thresholdsAreWhereTheFittedLineCrossesThreeQuartersAndOneHalf() throws {
        // α1 = 1.5 − 0.01 × (HR − 100): 0.75 at 175, 0.5 at 200; power = 2 × HR.
        let points = stride(from: 100.0, through: 220, by: 1).enumerated().map { index, heartRate in
            DFAAlpha1Point(offset: Double(index) * 5, alpha1: 1.5 - 0.01 * (heartRate - 100), heartRate: heartRate, power: 2 * heartRate)
        }
        let thresholds = DFAThresholds(points)
        #expect(abs(try #require(thresholds.heartRate1) - 175) < 1e-9)
        #expect(abs(try #require(thresholds.heartRate2) - 200) < 1e-9)
        #expect(abs(try #require(thresholds.power1) - 350) < 1e-9)
        #expect(abs(try #require(thresholds.power2) - 400) < 1e-9)
        // From the last α1 ≥ 1.0 (HR 150) to the first below 0.5 (HR 201).
        #expect(thresholds.heartRateWindows == 52)

        let zones = try DFAAlpha1Series(points: points, intervalCount: 1).heartRateZoneConfiguration()
        #expect(zones.boundaryValues == [162, 175, 188, 200])  // 81 % of 200, HRVT1, midpoint, HRVT2
    }

    @Test func noCrossingIsATypedError() throws {
        // α1 about 0.5 throughout (white noise), no trend with heart rate.
        let flat = (0..<50).map { DFAAlpha1Point(offset: Double($0) * 5, alpha1: 0.55 + 0.01 * Double($0 % 3), heartRate: 120 + Double($0)) }
        #expect(DFAThresholds(flat).heartRate1 == nil)
        #expect(throws: DFAZoneError.noCrossing(windows: 50, highest: 0.55 + 0.01 * 2, lowest: 0.55)) {
            try DFAAlpha1Series(points: flat, intervalCount: 5000).heartRateZoneConfiguration()
        }
        #expect(throws: DFAZoneError.noRRIntervals) { try DFAAlpha1Series(points: []).heartRateZoneConfiguration() }
        #expect(throws: DFAZoneError.noWindows(refused: 3)) {
            try DFAAlpha1Series(points: [], refusedWindows: 3, intervalCount: 100).heartRateZoneConfiguration()
        }
        // Rising α1 (a cool-down) gives no thresholds.
        let rising = (0..<50).map { DFAAlpha1Point(offset: Double($0) * 5, alpha1: 0.3 + 0.02 * Double($0), heartRate: 120 + Double($0)) }
        #expect(DFAThresholds(rising) == DFAThresholds())
    }
}
