public import SensorCore

/// What a sensor is doing, as the person sees it on the dashboard and in the summary.
public enum SensorState: String, Sendable, Hashable, CaseIterable {
    /// Known to the workout, no value yet (connecting, or before its first notification).
    case connecting
    /// Sending valid values.
    case notifying
    /// A heart-rate strap that reports no skin contact: its values do not count.
    case noContact
    /// Sending values no sensor could measure or no person produce (a heart rate of 0 or outside
    /// `plausibleHeartRate`; power, cadence or speed outside `plausiblePower`, `plausibleCadence` or
    /// `plausibleSpeed`, or a power spike by `PowerSpikeDetector`): they do not count.
    case invalid
    /// Connected, but no value for longer than `SensorStateTracker.staleAfter`.
    case stale
    /// The link dropped.
    case lost

    /// Heart rates that count, in beats per minute: below 25 or above 250 no person's heart beats
    /// (the strap reads noise), and 0 is what straps send without contact.
    public static let plausibleHeartRate: ClosedRange<Double> = 25...250

    /// Power that counts, in watts: the best sprinters peak at 2,500-2,600 W for a second, so
    /// 3,000 W leaves a margin (and is the highest power zone boundary `ZonePlausibility` allows).
    /// Negative power is what the characteristic allows (sint16) and some meters send: it counts.
    public static let plausiblePower: PartialRangeThrough<Double> = ...3000

    /// Crank cadence that counts, in rpm: track sprinters spin up to about 200 rpm; above 250 the
    /// crank counter glitched.
    public static let plausibleCadence: PartialRangeThrough<Double> = ...250

    /// Wheel speed that counts, in m/s: 120 km/h, beyond any descent on a bike (the record
    /// descents on a road bike are about 110 km/h); above it the wheel counter glitched.
    public static let plausibleSpeed: PartialRangeThrough<Double> = ...(120 / 3.6)
}

/// The state of each sensor of a workout and the time it spent in each (pure: fed with times).
/// Keyed by the session's sensor ids: it is updated for every sample.
public struct SensorStateTracker: Sendable, Equatable {
    /// A sensor whose state is `notifying` and that sends nothing for this long turns `stale`.
    public static let staleAfter = Duration.seconds(5)

    struct Entry: Sendable, Equatable {
        var state: SensorState
        var since: Duration
        var lastHeard: Duration
        var totals: [SensorState: Duration] = [:]
    }

    private(set) var entries: [SensorID: Entry] = [:]

    public init() {}

    /// The current state of `sensor`, nil for a sensor it does not know.
    public func state(of sensor: SensorID) -> SensorState? { entries[sensor]?.state }

    /// When `sensor` would have turned stale had nothing come from it until `time`: its last value
    /// plus `staleAfter`, when it is notifying and that is not after `time`; nil otherwise. Lets a
    /// value that arrives after a silence mark the silence stale, whether a tick saw it or not.
    public func staleTime(of sensor: SensorID, before time: Duration) -> Duration? {
        guard let entry = entries[sensor], entry.state == .notifying, time - entry.lastHeard >= Self.staleAfter else {
            return nil
        }
        return entry.lastHeard + Self.staleAfter
    }

    /// A value from `sensor` at `time`, when it is notifying and was heard less than `staleAfter`
    /// before: notes it and returns true (what `set(sensor, .notifying, at: time)` does then, with
    /// no state change and no silence to mark stale). False, changing nothing, otherwise.
    public mutating func heardAgain(_ sensor: SensorID, at time: Duration) -> Bool {
        guard let index = entries.index(forKey: sensor), entries.values[index].state == .notifying,
            time - entries.values[index].lastHeard < Self.staleAfter
        else { return false }
        entries.values[index].lastHeard = max(entries.values[index].lastHeard, time)
        return true
    }

    /// Moves `sensor` to `state` at `time` (a sensor first seen starts there); true when its
    /// state changed.
    @discardableResult
    public mutating func set(_ sensor: SensorID, _ state: SensorState, at time: Duration) -> Bool {
        guard let index = entries.index(forKey: sensor) else {
            entries[sensor] = Entry(state: state, since: time, lastHeard: time)
            return true
        }
        // In place: this runs for every sample, and a copy of the entry would copy its totals.
        if state == .notifying { entries.values[index].lastHeard = max(entries.values[index].lastHeard, time) }
        guard entries.values[index].state != state else { return false }
        var entry = entries.values[index]
        let now = max(time, entry.since)
        entry.totals[entry.state, default: .zero] += now - entry.since
        (entry.state, entry.since) = (state, now)
        if state == .notifying { entry.lastHeard = now }
        entries[sensor] = entry
        return true
    }

    /// Sensors that have been notifying but silent for `staleAfter` by `now`, turned `stale` at
    /// the moment they went silent plus `staleAfter`; returns them with that time, in time order.
    public mutating func tick(at now: Duration) -> [(sensor: SensorID, at: Duration)] {
        // Called for every batch of samples: nothing is allocated unless a sensor turns stale.
        guard entries.values.contains(where: { $0.state == .notifying && now - $0.lastHeard >= Self.staleAfter }) else {
            return []
        }
        var turned: [(sensor: SensorID, at: Duration)] = []
        for (sensor, entry) in entries.sorted(by: { $0.key.rawValue < $1.key.rawValue })
        where entry.state == .notifying && now - entry.lastHeard >= Self.staleAfter {
            let at = entry.lastHeard + Self.staleAfter
            set(sensor, .stale, at: at)
            turned.append((sensor, at))
        }
        return turned.sorted { $0.at < $1.at }
    }

    /// Time in each state by sensor, up to `end` (states with no time are left out).
    public func durations(until end: Duration) -> [SensorID: [SensorState: Duration]] {
        entries.mapValues { entry in
            var totals = entry.totals
            totals[entry.state, default: .zero] += max(end - entry.since, .zero)
            return totals.filter { $0.value > .zero }
        }
    }
}
