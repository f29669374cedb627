public import SensorCore

/// Why zone boundaries do not make a `WorkoutZoneConfiguration` (DESIGN.md §3 "Zones").
///
/// Boundary positions in the cases are 0-based; `description` counts from 1, as a person would.
public enum WorkoutZoneConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Only heart rate and cycling power have zones.
    case unsupportedQuantityType(QuantityType)
    /// There must be 2 to 8 boundaries (3 to 9 zones); the payload is the count given.
    case boundaryCount(Int)
    /// The boundary's unit does not measure the quantity type (rpm or W for heart rate, count/min for power).
    case incompatibleUnit(index: Int, boundary: Quantity, quantityType: QuantityType)
    /// The boundary is NaN or infinite.
    case notFinite(index: Int, boundary: Quantity)
    /// The boundary is zero or negative.
    case notPositive(index: Int, boundary: Quantity)
    /// The boundary is not greater than the one before it (compared in the canonical unit).
    case notIncreasing(index: Int, boundary: Quantity, previous: Quantity)

    public var description: String {
        switch self {
        case .unsupportedQuantityType(let type):
            return "\(type.identifier) has no zones; zones exist for heartRate (count/min) and cyclingPower (W)"
        case .boundaryCount(let count):
            return "a zone configuration needs 2 to 8 boundaries (3 to 9 zones), not \(count)"
        case .incompatibleUnit(let index, let boundary, let type):
            let expected = type == .heartRate ? "count/min (bpm)" : "W or kW"
            return "boundary \(index + 1) is \(boundary.text), which is not a unit of \(type.identifier); "
                + "give \(type.identifier) boundaries in \(expected)"
        case .notFinite(let index, let boundary):
            return "boundary \(index + 1) is \(boundary.text); boundaries must be finite numbers"
        case .notPositive(let index, let boundary):
            return "boundary \(index + 1) is \(boundary.text); boundaries must be greater than zero"
        case .notIncreasing(let index, let boundary, let previous):
            return "boundary \(index + 1) (\(boundary.text)) is not greater than boundary \(index) "
                + "(\(previous.text)); boundaries must be strictly increasing"
        }
    }
}

extension Quantity {
    /// `128 count/min`, `0.25 kW`: the value without a needless `.0`, for messages.
    var text: String { "\(value.shortText) \(unit.symbol)" }
}

extension Double {
    /// `72` for integral values, else the shortest round-trip text.
    var shortText: String {
        rounded() == self && abs(self) < 1e15 ? String(Int64(self)) : description
    }
}
