/// Time spent in one zone, as HealthKit's `HKWorkoutZoneDuration` (DESIGN.md §3 "Zones").
public struct WorkoutZoneDuration: Sendable, Hashable {
    /// The zone.
    public let zone: WorkoutZone
    /// Active time credited to the zone (exact: sums of sample-time differences, no floating point).
    public let duration: Duration

    public init(zone: WorkoutZone, duration: Duration) {
        self.zone = zone
        self.duration = duration
    }
}
