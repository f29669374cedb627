import Foundation
import SensorCore
import Testing
import Workouts
import Zones

/// Best efforts (issue 33, item 3): the highest and lowest means over 1 s to 60 min of the value
/// held at each second of active time, the series normalized power is computed from.
@Suite struct BestEffortsTests {
    @Test func extremesOfAHandSeries() {
        let series: [(second: Int64, value: Double)] = [(0, 100), (1, 300), (2, 200), (3, 400), (4, 0)]
        let highest = BestEfforts.extremes(of: series, highest: true)
        #expect(highest.map(\.seconds) == [1, 2, 3, 5])
        // 1 s: 400 at 3; 2 s: (200 + 400) / 2 at 2; 3 s: (300 + 200 + 400) / 3 at 1; 5 s: all.
        #expect(highest.map(\.value) == [400, 300, 300, 200])
        #expect(highest.map(\.offset) == [.seconds(3), .seconds(2), .seconds(1), .seconds(0)])
        let lowest = BestEfforts.extremes(of: series, highest: false)
        #expect(lowest.map(\.value) == [0, 200, 200, 200])
        #expect(lowest.map(\.offset) == [.seconds(4), .zero, .zero, .zero])
        #expect(BestEfforts.extremes(of: [], highest: true).isEmpty)
        // A series exactly as long as a duration has that duration's effort.
        #expect(BestEfforts.extremes(of: Array(series.prefix(3)), highest: true).map(\.seconds) == [1, 2, 3])
    }

    /// 200 W for a minute, a pause of a minute with 1000 W sent in it, then 300 W for a minute: the
    /// paused power never counts, and the 2 min effort joins the riding either side of the pause.
    @Test func pausedPowerNeverCountsAndAStretchJoinsAcrossAPause() throws {
        var m = WorkoutStateMachine(activityType: .cycling)
        m.sensors = [SensorID(2): "power"]
        try m.beginCollection(at: .zero, date: Date(timeIntervalSince1970: 0))
        for second in 0..<180 {
            if second == 60 { try m.pause(at: .seconds(60)) }
            if second == 120 { try m.resume(at: .seconds(120)) }
            let watts = second < 60 ? 200.0 : second < 120 ? 1000 : 300
            m.add(Sample(sensor: SensorID(2), type: .cyclingPower, value: watts, time: .seconds(second)))
        }
        try m.endCollection(at: .seconds(180))
        let efforts = try m.finishWorkout().bestEfforts()
        func power(_ seconds: Int) -> BestEffort? { efforts.power.first { $0.seconds == seconds } }
        #expect(power(1) == BestEffort(seconds: 1, value: 300, offset: .seconds(120)))
        #expect(power(60) == BestEffort(seconds: 60, value: 300, offset: .seconds(120)))
        #expect(power(120) == BestEffort(seconds: 120, value: 250, offset: .zero))
        #expect(power(180) == nil)
        #expect(efforts.heartRate.isEmpty && efforts.lowestHeartRate.isEmpty)
    }

    /// Random rides (pauses, samples on shared instants, gaps longer than the hold) against a
    /// reference that looks at each whole second on its own and tries every stretch.
    @Test(arguments: 0..<12) func randomRidesAgreeWithEveryStretchTried(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let workout = try LapSummaryTests.randomRide(&random, typeOutOfOrder: false)
        let efforts = workout.bestEfforts()
        for (type, list, highest) in [
            (QuantityType.cyclingPower, efforts.power, true), (.heartRate, efforts.heartRate, true), (.heartRate, efforts.lowestHeartRate, false),
        ] {
            let series = Self.reference(workout, type)
            let expected = BestEfforts.durations.filter { $0 <= series.count }.map { seconds in
                (0...(series.count - seconds)).map { start in series[start..<(start + seconds)].reduce(0, +) / Double(seconds) }
                    .reduce(highest ? -Double.infinity : Double.infinity) { highest ? max($0, $1) : min($0, $1) }
            }
            #expect(list.map(\.seconds) == Array(BestEfforts.durations.prefix(expected.count)), "seed \(seed) \(type)")
            for (effort, value) in zip(list, expected) {
                #expect(abs(effort.value - value) < 1e-9, "seed \(seed) \(type) \(effort.seconds) s")
            }
        }
    }

    /// The value held at each whole second of active time, second by second: the latest sample at
    /// or before it, within the zone rule's hold and not a hold end.
    static func reference(_ workout: Workout, _ type: QuantityType) -> [Double] {
        let hold = ZoneClassifier.defaultMaximumHold(for: type)
        let samples = workout.samplesWithHoldEnds.filter { $0.type == type }
        var values: [Double] = []
        var second = 0
        while workout.start + .seconds(second) < workout.end {
            defer { second += 1 }
            let time = workout.start + .seconds(second)
            guard !workout.pauses.contains(where: { $0.contains(time) }),
                let latest = samples.last(where: { $0.time <= time }), !latest.value.isNaN, time < latest.time + hold
            else { continue }
            values.append(latest.value)
        }
        return values
    }
}
