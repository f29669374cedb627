public import Foundation
import SensorCore
public import Workouts
import Zones

/// A workout resampled at every whole second from its start: what the CSV rows, the TCX
/// trackpoints and the SVG chart show.
///
/// The value at second `k` (time `start + k s`) is the latest sample at or before it, held by the
/// zone rule's bounded sample-and-hold (DESIGN.md §3 "Zones"): a sample at `t[i]` stands for
/// `[t[i], min(t[i+1], t[i] + maxHold))`, maxHold 5 s for heart rate and 3 s for power, cadence and
/// speed (`ZoneClassifier.defaultMaximumHold`). Zones are given only for active (not paused)
/// seconds, so counting the seconds in a zone gives the workout's time in that zone to within a
/// second per run of consecutive seconds.
public struct WorkoutSeconds: Sendable {
    /// One second of the workout.
    public struct Second: Sendable, Hashable {
        /// Whole seconds since the workout's start.
        public var elapsed: Int
        /// Whether the workout was running (not paused) at this second.
        public var isActive: Bool
        /// Heart rate, bpm.
        public var heartRate: Double?
        /// Cycling power, W.
        public var power: Double?
        /// Crank cadence, rpm.
        public var cadence: Double?
        /// Wheel speed, m/s.
        public var speed: Double?
        /// Pedal power balance, % on the left pedal.
        public var pedalPowerBalance: Double?
        /// The heart-rate zone (0-based) of an active second with a value; nil otherwise.
        public var heartRateZone: Int?
        /// The power zone (0-based) of an active second with a value; nil otherwise.
        public var powerZone: Int?
    }

    /// Wall-clock time of second 0.
    public let startDate: Date
    /// Seconds `0 ..< ceil(duration)`.
    public let seconds: [Second]

    public init(_ workout: Workout) {
        startDate = workout.startDate
        let duration = workout.duration
        var count = Int(duration.components.seconds)
        if duration > .seconds(count) { count += 1 }
        count = max(count, 0)
        let times = (0..<count).map { workout.start + .seconds($0) }
        let heartRate = Self.held(.heartRate, workout, times)
        let power = Self.held(.cyclingPower, workout, times)
        let cadence = Self.held(.cyclingCadence, workout, times)
        let speed = Self.held(.cyclingSpeed, workout, times)
        let balance = Self.held(.pedalPowerBalance, workout, times)
        let heartRateZones = workout.zoneGroupsByType[.heartRate]?.configuration
        let powerZones = workout.zoneGroupsByType[.cyclingPower]?.configuration
        var pauseIndex = 0
        seconds = times.indices.map { k in
            let time = times[k]
            while pauseIndex < workout.pauses.count, workout.pauses[pauseIndex].upperBound <= time { pauseIndex += 1 }
            let isActive = pauseIndex == workout.pauses.count || !workout.pauses[pauseIndex].contains(time)
            return Second(
                elapsed: k, isActive: isActive, heartRate: heartRate[k], power: power[k], cadence: cadence[k],
                speed: speed[k], pedalPowerBalance: balance[k],
                heartRateZone: isActive ? heartRate[k].flatMap { heartRateZones?.zoneIndex(for: $0) } : nil,
                powerZone: isActive ? power[k].flatMap { powerZones?.zoneIndex(for: $0) } : nil)
        }
    }

    /// The held value of `type` at each of `times` (increasing), from the workout's samples in time
    /// order (the order they arrived in). Samples the zone classifier
    /// refuses (NaN, before the start, after the end, earlier than the one before) are skipped.
    static func held(_ type: QuantityType, _ workout: Workout, _ times: [Duration]) -> [Double?] {
        let hold = ZoneClassifier.defaultMaximumHold(for: type)
        var result = [Double?](repeating: nil, count: times.count)
        var latest: (time: Duration, value: Double)?
        var next = workout.samples.startIndex
        for (k, time) in times.enumerated() {
            while next < workout.samples.endIndex, workout.samples[next].time <= time {
                let sample = workout.samples[next]
                next += 1
                guard sample.type == type, !sample.value.isNaN, sample.time >= workout.start,
                    sample.time >= latest?.time ?? workout.start
                else { continue }
                latest = (sample.time, sample.value)
            }
            if let latest, time < latest.time + hold { result[k] = latest.value }
        }
        return result
    }
}
