public import SensorCore

/// Why zone boundaries a person gives are not plausible (`ZonePlausibility`); positions are
/// 0-based, `description` counts from 1 and says what to give instead.
public enum ZonePlausibilityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A heart-rate boundary outside 30...250 count/min (or not a number).
    case heartRateOutOfRange(index: Int, value: Double)
    /// A power boundary of 0 W or less (or not a number).
    case powerNotPositive(index: Int, value: Double)
    /// A power boundary above 3,000 W.
    case powerTooHigh(index: Int, value: Double)
    /// A boundary less than 1 unit above the one before it (or not above it at all).
    case tooClose(QuantityType, index: Int, value: Double, previous: Double)
    /// Only heart rate and cycling power have zones.
    case noZones(QuantityType)

    public var description: String {
        switch self {
        case .heartRateOutOfRange(let index, let value):
            "boundary \(index + 1) is \(value.shortText) bpm, which no heart-rate zone starts at; give heart-rate "
                + "boundaries from \(ZonePlausibility.heartRateRange.lowerBound.shortText) to "
                + "\(ZonePlausibility.heartRateRange.upperBound.shortText) bpm, such as 120,140,155,170"
        case .powerNotPositive(let index, let value):
            "boundary \(index + 1) is \(value.shortText) W; power boundaries must be above 0 W, such as 150,200,250,300"
        case .powerTooHigh(let index, let value):
            "boundary \(index + 1) is \(value.shortText) W, above the \(ZonePlausibility.maximumPower.shortText) W "
                + "no rider holds as a zone; give power boundaries in W (not mW), such as 150,200,250,300"
        case .tooClose(let type, let index, let value, let previous):
            "boundary \(index + 1) (\(value.shortText)) is less than \(ZonePlausibility.minimumSpacing.shortText) "
                + "\(type == .heartRate ? "bpm" : "W") above boundary \(index) (\(previous.shortText)); give "
                + "increasing boundaries at least \(ZonePlausibility.minimumSpacing.shortText) apart"
        case .noZones(let type):
            "\(type.identifier) has no zones; zones exist for heartRate (count/min) and cyclingPower (W)"
        }
    }
}
