public import SensorCore

/// One zone of a `WorkoutZoneConfiguration`, as HealthKit's `HKWorkoutZone` (DESIGN.md §3 "Zones").
///
/// Membership is half-open: a value `v` is in the zone when `minimum <= v < maximum`. The first
/// zone has no minimum (so negative watts land in it) and the last has no maximum.
public struct WorkoutZone: Sendable, Hashable {
    /// Position in the configuration, 0-based, low to high.
    public let index: Int
    /// Inclusive lower bound in the quantity type's canonical unit (count/min or W); nil for the first zone.
    public let minimum: Quantity?
    /// Exclusive upper bound in the quantity type's canonical unit; nil for the last zone.
    public let maximum: Quantity?

    init(index: Int, minimum: Quantity?, maximum: Quantity?) {
        self.index = index
        self.minimum = minimum
        self.maximum = maximum
    }

    /// Whether `quantity` lies in this zone (`minimum <= v < maximum`); false for an incompatible unit or NaN.
    public func contains(_ quantity: Quantity) -> Bool {
        if let minimum {
            guard let value = quantity.value(in: minimum.unit), value >= minimum.value else { return false }
        }
        if let maximum {
            guard let value = quantity.value(in: maximum.unit), value < maximum.value else { return false }
        }
        return true
    }

    /// The zone's bounds for people: `< 128 bpm`, `128-141 bpm`, `>= 167 bpm` (`unit` is the
    /// symbol to print; boundaries as they are, `127.5` stays `127.5`).
    public func rangeText(unit: String) -> String {
        func number(_ quantity: Quantity) -> String {
            let value = quantity.value
            return value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : value.description
        }
        switch (minimum, maximum) {
        case (nil, let maximum?): return "< \(number(maximum)) \(unit)"
        case (let minimum?, nil): return ">= \(number(minimum)) \(unit)"
        case (let minimum?, let maximum?): return "\(number(minimum))-\(number(maximum)) \(unit)"
        case (nil, nil): return "any"
        }
    }
}
