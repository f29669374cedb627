public import SensorCore

/// Whether zone boundaries a person gives are ones a person's zones could have (DESIGN.md §3
/// "Zones", plausible zones): heart-rate boundaries from 30 to 250 count/min, power boundaries
/// above 0 and at most 3,000 W, each boundary at least 1 unit (count/min, W) above the one before.
///
/// This is SensorBridge's own rule for zones set by a person (`zones set`, `--hr-zones`,
/// `--power-zones`, `workouts zones --zones`), checked on top of `WorkoutZoneConfiguration`'s
/// HealthKit rules (2 to 8 finite, positive, increasing boundaries), which stay as HealthKit has
/// them. System zones, computed from a profile whose values are checked, are not held to it.
public enum ZonePlausibility {
    /// The heart-rate boundaries accepted, in count/min.
    public static let heartRateRange: ClosedRange<Double> = 30...250
    /// The greatest power boundary accepted, in W; power boundaries must also be above 0.
    public static let maximumPower: Double = 3000
    /// The least distance between two neighbouring boundaries, in the canonical unit.
    public static let minimumSpacing: Double = 1

    /// Checks boundaries in the canonical unit of `quantityType` (count/min, W), in the order given:
    /// each in range, then each at least `minimumSpacing` above the one before.
    ///
    /// - Throws: `ZonePlausibilityError` for the first boundary that fails, with the reason.
    public static func check(_ quantityType: QuantityType, boundaryValues values: [Double])
        throws(ZonePlausibilityError)
    {
        for (index, value) in values.enumerated() {
            switch quantityType {
            case .heartRate:
                guard value.isFinite, heartRateRange.contains(value) else {
                    throw .heartRateOutOfRange(index: index, value: value)
                }
            case .cyclingPower:
                guard value.isFinite, value > 0 else { throw .powerNotPositive(index: index, value: value) }
                guard value <= maximumPower else { throw .powerTooHigh(index: index, value: value) }
            default:
                throw .noZones(quantityType)
            }
        }
        for index in values.indices.dropFirst() where !(values[index] - values[index - 1] >= minimumSpacing) {
            throw .tooClose(quantityType, index: index, value: values[index], previous: values[index - 1])
        }
    }

    /// Checks a configuration's boundaries.
    public static func check(_ configuration: WorkoutZoneConfiguration) throws(ZonePlausibilityError) {
        try check(configuration.quantityType, boundaryValues: configuration.boundaryValues)
    }
}
