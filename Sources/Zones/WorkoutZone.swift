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
}
