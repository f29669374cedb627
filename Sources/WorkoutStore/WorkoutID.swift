/// A stored workout's id: the `workouts.id` row id, which `sensorbridge workouts` prints and takes.
public struct WorkoutID: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: Int64

    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    /// Parses a positive decimal id such as `12`.
    public init?(_ text: String) {
        guard let value = Int64(text), value > 0 else { return nil }
        rawValue = value
    }

    public var description: String { String(rawValue) }

    public static func < (lhs: WorkoutID, rhs: WorkoutID) -> Bool { lhs.rawValue < rhs.rawValue }
}
