public import SensorCore
public import Zones

/// What a plan step's target asks of one quantity at a moment, made concrete for one rider: watts
/// from % of FTP and ramps, zones from the workout's zone configuration (DESIGN.md §3 "Workout
/// plans"). Judges values in or out, live (`StepCoach`) and after the ride (`Workout.stepResults`)
/// alike. Pure.
public struct StepGoal: Sendable, Equatable {
    public enum Bounds: Sendable, Equatable {
        /// Values from the first to the second, inclusive.
        case values(ClosedRange<Double>)
        /// The zones of the configuration (0-based), by its own rule for a value's zone.
        case zones(ClosedRange<Int>, WorkoutZoneConfiguration)
    }

    public var quantityType: QuantityType
    public var bounds: Bounds

    /// How far from a target of one value (Zwift's `Power="0.88"`, a ramp's value at the moment)
    /// a value still meets it: 5 % either way, the band head units draw around such a target.
    public static let tolerance = 0.05

    public init(quantityType: QuantityType, bounds: Bounds) {
        self.quantityType = quantityType
        self.bounds = bounds
    }

    /// A value's place against the goal: below it, in it, above it.
    public func judge(_ value: Double) -> Judgement {
        switch bounds {
        case .values(let range):
            return value < range.lowerBound ? .below : value > range.upperBound ? .above : .in
        case .zones(let zones, let configuration):
            guard let zone = configuration.zoneIndex(for: value) else { return .below }
            return zone < zones.lowerBound ? .below : zone > zones.upperBound ? .above : .in
        }
    }

    public enum Judgement: Sendable, Equatable {
        case below, `in`, above
    }
}

extension PlanStep {
    /// The goal of this step at `elapsed` (active time) into it for a rider with FTP `ftp` and the
    /// zones `zones`; nil when the target asks nothing (free ride), or asks what cannot be made
    /// concrete: % of FTP without an FTP, zones the workout has no configuration for, or more
    /// zones than it has.
    public func goal(at elapsed: Duration, ftp: Int?, zones: [QuantityType: WorkoutZoneConfiguration]) -> StepGoal? {
        func band(_ range: ClosedRange<Double>) -> ClosedRange<Double> {
            guard range.lowerBound == range.upperBound else { return range }
            let value = range.lowerBound
            return (value * (1 - StepGoal.tolerance))...(value * (1 + StepGoal.tolerance))
        }
        func zoned(_ type: QuantityType, _ numbers: ClosedRange<Int>) -> StepGoal? {
            guard let configuration = zones[type], numbers.upperBound <= configuration.zones.count else { return nil }
            return StepGoal(quantityType: type, bounds: .zones((numbers.lowerBound - 1)...(numbers.upperBound - 1), configuration))
        }
        switch target {
        case .none: return nil
        case .powerOfFTP, .watts, .rampOfFTP, .rampWatts:
            return watts(at: elapsed, ftp: ftp).map { StepGoal(quantityType: .cyclingPower, bounds: .values(band($0))) }
        case .powerZones(let numbers): return zoned(.cyclingPower, numbers)
        case .heartRateZones(let numbers): return zoned(.heartRate, numbers)
        case .heartRate(let range): return StepGoal(quantityType: .heartRate, bounds: .values(band(range)))
        }
    }

    /// The step's length, nil for an open step.
    public var timeLength: Duration? {
        if case .time(let length) = length { length } else { nil }
    }
}
