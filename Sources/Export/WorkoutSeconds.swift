public import Foundation
import SensorCore
public import Workouts
import Zones

/// A workout resampled at whole seconds from its start: what the CSV rows, the TCX trackpoints,
/// the FIT records and the SVG chart show.
///
/// The value at second `k` (time `start + k s`) is the latest sample at or before it, held by the
/// zone rule's bounded sample-and-hold (DESIGN.md §3 "Zones"): a sample at `t[i]` stands for
/// `[t[i], min(t[i+1], t[i] + maxHold))`, maxHold 5 s for heart rate and 3 s for power, cadence and
/// speed (`ZoneClassifier.defaultMaximumHold`). Zones are given only for active (not paused)
/// seconds, so counting the seconds in a zone gives the workout's time in that zone to within a
/// second per run of consecutive seconds.
///
/// Only the seconds at which some value holds are kept: a stretch where nothing holds (every
/// sensor gone) is a gap in `seconds`, not a run of empty seconds. A sample holds for at most 6
/// whole seconds, so the series is bounded by the number of samples, whatever time the workout
/// spans; a workout whose clock jumped by years costs no more than its samples.
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

        var holdsAValue: Bool {
            heartRate != nil || power != nil || cadence != nil || speed != nil || pedalPowerBalance != nil
        }
    }

    /// The quantities a second shows.
    static let types: [QuantityType] = [.heartRate, .cyclingPower, .cyclingCadence, .cyclingSpeed, .pedalPowerBalance]

    /// Wall-clock time of second 0.
    public let startDate: Date
    /// The seconds in `0 ..< ceil(duration)` at which some value holds, by increasing `elapsed`.
    public let seconds: [Second]

    public init(_ workout: Workout) {
        startDate = workout.startDate
        let count = Self.secondsCeiling(workout.duration)
        // Every whole second some sample's hold reaches: a superset of the seconds with a value,
        // at most ceil(hold) + 1 per sample.
        var candidates: [Int64] = []
        for sample in workout.samples where Self.types.contains(sample.type) && sample.time >= workout.start {
            let offset = sample.time - workout.start
            let holdEnd = offset + ZoneClassifier.defaultMaximumHold(for: sample.type)
            var k = Self.secondsCeiling(offset)
            while k < count, .seconds(k) < holdEnd {
                candidates.append(k)
                k += 1
            }
        }
        candidates.sort()
        var elapsed: [Int64] = []
        elapsed.reserveCapacity(candidates.count)
        for k in candidates where k != elapsed.last { elapsed.append(k) }
        let times = elapsed.map { workout.start + .seconds($0) }
        let heartRate = Self.held(.heartRate, workout, times)
        let power = Self.held(.cyclingPower, workout, times)
        let cadence = Self.held(.cyclingCadence, workout, times)
        let speed = Self.held(.cyclingSpeed, workout, times)
        let balance = Self.held(.pedalPowerBalance, workout, times)
        let heartRateZones = workout.zoneGroupsByType[.heartRate]?.configuration
        let powerZones = workout.zoneGroupsByType[.cyclingPower]?.configuration
        var pauseIndex = 0
        var seconds: [Second] = []
        seconds.reserveCapacity(times.count)
        for (k, time) in times.enumerated() {
            while pauseIndex < workout.pauses.count, workout.pauses[pauseIndex].upperBound <= time { pauseIndex += 1 }
            let isActive = pauseIndex == workout.pauses.count || !workout.pauses[pauseIndex].contains(time)
            let second = Second(
                elapsed: Int(elapsed[k]), isActive: isActive, heartRate: heartRate[k], power: power[k],
                cadence: cadence[k], speed: speed[k], pedalPowerBalance: balance[k],
                heartRateZone: isActive ? heartRate[k].flatMap { heartRateZones?.zoneIndex(for: $0) } : nil,
                powerZone: isActive ? power[k].flatMap { powerZones?.zoneIndex(for: $0) } : nil)
            if second.holdsAValue { seconds.append(second) }
        }
        self.seconds = seconds
    }

    /// The number of whole seconds from the start of a span of `duration`: ⌈duration / 1 s⌉, 0
    /// when it is negative.
    static func secondsCeiling(_ duration: Duration) -> Int64 {
        guard duration > .zero else { return 0 }
        let whole = duration.components.seconds
        return duration > .seconds(whole) ? whole + 1 : whole
    }

    /// The positions in `seconds` of the seconds `from ..< to` (elapsed).
    public func indices(from: Int, to: Int) -> Range<Int> {
        let lower = firstIndex(atOrAfter: from)
        return lower..<max(lower, firstIndex(atOrAfter: to))
    }

    /// The position of the first second at or after `elapsed` (binary search).
    private func firstIndex(atOrAfter elapsed: Int) -> Int {
        var low = 0
        var high = seconds.count
        while low < high {
            let middle = (low + high) / 2
            if seconds[middle].elapsed < elapsed { low = middle + 1 } else { high = middle }
        }
        return low
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
