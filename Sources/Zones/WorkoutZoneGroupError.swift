/// Why durations do not make a `WorkoutZoneGroup`, or two groups do not add up.
public enum WorkoutZoneGroupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// There must be one duration per zone.
    case durationCount(expected: Int, actual: Int)
    /// Time in a zone cannot be negative (also the result of subtracting a later group from an earlier one).
    case negativeDuration(zoneIndex: Int, duration: Duration)
    /// The groups have different quantity types or boundaries; re-bucket the raw samples into one
    /// configuration first.
    case differentZones

    public var description: String {
        switch self {
        case .durationCount(let expected, let actual):
            "a zone group needs one duration per zone: \(expected), not \(actual)"
        case .negativeDuration(let index, let duration):
            "the duration of zone \(index) is negative (\(duration))"
        case .differentZones:
            "the zone groups have different zones; re-bucket their samples into one configuration to combine them"
        }
    }
}
