/// Where a zone configuration came from (DESIGN.md §3 "Zones"), as HealthKit's workout-zone sources.
public enum WorkoutZoneSource: String, Sendable, Hashable, CaseIterable, Codable {
    /// Computed by a default model from the person's profile (heart-rate reserve, % of FTP).
    case system
    /// The person's preferred configuration, used for every workout until they change it.
    case user
    /// Set for one workout before its collection begins.
    case custom
}
