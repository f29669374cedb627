import SensorCore
/// Turns the cumulative revolution counters of Cycling Power and CSC measurements into a rate:
/// crank cadence or wheel speed.
///
/// A sensor sends a revolution count and the time of the last revolution event, both wrapping
/// (uint16 or uint32 counts, uint16 times). The rate is Δrevolutions / Δevent-time, with modular
/// (wrapping) arithmetic on both, so 65535 → 2 is three revolutions.
///
/// - A repeated count ("no new revolution", a duplicate notification, or the sensor repeating
///   its last event time) leaves the rate as it was: it is not zero cadence.
/// - The rate falls to 0 only after the count has been still for `stillTimeout`: 3 s, or twice
///   the sensor's notification interval when it notifies more slowly than every 1.5 s.
/// - Dropped notifications are harmless: the next delta spans them. A gap longer than the event
///   time can express (64 s at 1/1024 s, 32 s at 1/2048 s) could hide whole wraps, so the
///   estimator starts again from the next measurement.
/// - A delta that implies an impossible rate (a counter reset after a battery change) is
///   discarded and the estimator starts again.
///
/// Pure value type: the caller passes arrival times (the session's monotonic offsets).
public struct RevolutionRateEstimator<Counter: FixedWidthInteger & UnsignedInteger & Sendable>: Sendable {
    /// Event-time ticks per second: 1024 (crank, CSC wheel) or 2048 (Cycling Power wheel).
    public let ticksPerSecond: Double
    /// Rates above this many revolutions per second are treated as glitches.
    public let maximumRevolutionsPerSecond: Double
    /// The minimum time without a new revolution before the rate reads 0.
    public let baseStillTimeout: Duration

    private var baseline: (revolutions: Counter, eventTime: UInt16, arrival: Duration)?
    private var lastArrival: Duration?
    private var lastRevolutionArrival: Duration = .zero
    /// Whether the latest `update` brought a new revolution (its rate is news, not a held one).
    public private(set) var revolved = false
    /// The smoothed interval between measurements, in nanoseconds: integer arithmetic, where
    /// `Duration`'s generic multiplication goes through 128-bit conversions on every value.
    private var notificationInterval: Int64?
    /// Revolutions per second from the last delta with new revolutions.
    private var revolutionsPerSecond: Double?

    public init(ticksPerSecond: Double, maximumRevolutionsPerSecond: Double, stillTimeout: Duration = .seconds(3)) {
        precondition(ticksPerSecond > 0 && maximumRevolutionsPerSecond > 0)
        self.ticksPerSecond = ticksPerSecond
        self.maximumRevolutionsPerSecond = maximumRevolutionsPerSecond
        self.baseStillTimeout = stillTimeout
        wrapPeriod = .seconds(65536 / ticksPerSecond)
    }

    /// The longest span the uint16 event time can measure without ambiguity.
    public let wrapPeriod: Duration

    /// How long the count must stay still before the rate reads 0, adapted to the notification interval.
    public var stillTimeout: Duration {
        guard let interval = notificationInterval else { return baseStillTimeout }
        return max(baseStillTimeout, .nanoseconds(interval * 2))
    }

    /// Feeds one measurement that arrived at `arrival`; returns the rate in revolutions per
    /// second at that moment, or nil while it is not known yet (fewer than two measurements).
    @discardableResult
    public mutating func update(revolutions: Counter, eventTime: UInt16, at arrival: Duration) -> Double? {
        if let previous = lastArrival, arrival > previous {
            // Capped so that the smoothing below cannot overflow (a quarter of Int64: 73 years).
            let interval = min((arrival - previous).clampedNanoseconds, Int64.max / 4)
            // A smoothed notification interval (1/4 weight to the newest) for the still timeout.
            notificationInterval = notificationInterval.map { ($0 * 3 + interval) / 4 } ?? interval
        }
        lastArrival = arrival
        revolved = false
        guard let base = baseline else {
            restart(revolutions: revolutions, eventTime: eventTime, arrival: arrival)
            return nil
        }
        if arrival - base.arrival >= wrapPeriod {
            // The event time may have wrapped more than once since the baseline: start again.
            restart(revolutions: revolutions, eventTime: eventTime, arrival: arrival)
            revolutionsPerSecond = nil
            return nil
        }
        let deltaRevolutions = revolutions &- base.revolutions
        let deltaTicks = eventTime &- base.eventTime
        if deltaRevolutions == 0 || deltaTicks == 0 {
            // No new revolution (or a count without a new event time, which cannot be timed):
            // keep the baseline so the next real revolution is timed from the last one.
            return rate(at: arrival)
        }
        let rate = Double(deltaRevolutions) * ticksPerSecond / Double(deltaTicks)
        guard rate <= maximumRevolutionsPerSecond else {
            restart(revolutions: revolutions, eventTime: eventTime, arrival: arrival)
            revolutionsPerSecond = nil
            return nil
        }
        baseline = (revolutions, eventTime, arrival)
        lastRevolutionArrival = arrival
        revolutionsPerSecond = rate
        revolved = true
        return rate
    }

    /// The rate at `now` without a new measurement: the last rate, or 0 once the count has been
    /// still for `stillTimeout`; nil while not known.
    public func rate(at now: Duration) -> Double? {
        guard let rate = revolutionsPerSecond else { return nil }
        return now - lastRevolutionArrival >= stillTimeout ? 0 : rate
    }

    private mutating func restart(revolutions: Counter, eventTime: UInt16, arrival: Duration) {
        baseline = (revolutions, eventTime, arrival)
        lastRevolutionArrival = arrival
    }
}

/// Crank cadence in revolutions per minute from crank revolution data (1/1024 s event times).
public struct CadenceCalculator: Sendable {
    private var estimator = RevolutionRateEstimator<UInt16>(
        ticksPerSecond: 1024, maximumRevolutionsPerSecond: 300.0 / 60)

    public init() {}

    /// Feeds one measurement; the cadence in rpm, or nil until two measurements have been seen.
    @discardableResult
    public mutating func update(_ crank: CrankRevolutionData, at arrival: Duration) -> Double? {
        estimator.update(revolutions: crank.cumulativeRevolutions, eventTime: crank.lastEventTime, at: arrival)
            .map { $0 * 60 }
    }

    /// The cadence at `now` (0 once the crank has been still for about 3 s).
    public func cadence(at now: Duration) -> Double? { estimator.rate(at: now).map { $0 * 60 } }

    /// Whether the latest `update` brought a new crank revolution.
    public var revolved: Bool { estimator.revolved }
}

/// Wheel speed in metres per second from wheel revolution data and the wheel's circumference.
///
/// The event-time unit comes with the data (1/2048 s from Cycling Power, 1/1024 s from CSC).
public struct SpeedCalculator: Sendable {
    /// Wheel circumference in metres (default 2.105 m, a 700×25c road tyre).
    public let circumference: Double
    private var estimator: RevolutionRateEstimator<UInt32>?

    /// - Parameter circumference: metres; must be positive and finite.
    public init(circumference: Double = 2.105) {
        precondition(circumference > 0 && circumference.isFinite, "wheel circumference must be positive")
        self.circumference = circumference
    }

    /// Feeds one measurement; the speed in m/s, or nil until two measurements have been seen.
    @discardableResult
    public mutating func update(_ wheel: WheelRevolutionData, at arrival: Duration) -> Double? {
        let ticks = Double(wheel.ticksPerSecond)
        if estimator?.ticksPerSecond != ticks {
            // 40 revolutions per second is about 300 km/h on a road wheel: anything faster is a glitch.
            estimator = RevolutionRateEstimator(ticksPerSecond: ticks, maximumRevolutionsPerSecond: 40)
        }
        return estimator?.update(
            revolutions: wheel.cumulativeRevolutions, eventTime: wheel.lastEventTime, at: arrival
        ).map { $0 * circumference }
    }

    /// The speed at `now` (0 once the wheel has been still for about 3 s).
    public func speed(at now: Duration) -> Double? { estimator?.rate(at: now).map { $0 * circumference } }

    /// Whether the latest `update` brought a new wheel revolution.
    public var revolved: Bool { estimator?.revolved ?? false }
}
