public import SensorCore

/// A change of the current zone, as a live workout builder reports it (DESIGN.md §3 "Zones").
///
/// The current zone is the zone of the latest sample while its hold lasts, and no zone before the
/// first sample and after a hold expires (a stale sensor). Pauses do not change it.
public struct ZoneUpdate: Sendable, Hashable {
    /// When the zone changed, from the session anchor: the time of the sample that moved it, or the
    /// end of the hold of the sample that went stale.
    public let time: Duration
    /// The zone left, or nil when there was no zone.
    public let previousZoneIndex: Int?
    /// The zone entered, or nil for no zone (the sensor went stale).
    public let currentZoneIndex: Int?
    /// Running totals of every zone, credited up to `time`.
    public let zoneGroup: WorkoutZoneGroup
    /// The time of the latest sample processed when the zone changed (for a stale sensor, the sample
    /// whose hold expired).
    public let lastSampleTime: Duration

    /// An update as the classifier made it; for stores that read updates back.
    public init(
        time: Duration, previousZoneIndex: Int?, currentZoneIndex: Int?, zoneGroup: WorkoutZoneGroup,
        lastSampleTime: Duration
    ) {
        self.time = time
        self.previousZoneIndex = previousZoneIndex
        self.currentZoneIndex = currentZoneIndex
        self.zoneGroup = zoneGroup
        self.lastSampleTime = lastSampleTime
    }

    /// What the zones measure.
    public var quantityType: QuantityType { zoneGroup.configuration.quantityType }
    /// The zone left, with its total time up to `time`; nil when there was no zone.
    public var previous: WorkoutZoneDuration? { previousZoneIndex.map(zoneGroup.zoneDuration(ofZone:)) }
    /// The zone entered, with its total time up to `time`; nil for no zone.
    public var current: WorkoutZoneDuration? { currentZoneIndex.map(zoneGroup.zoneDuration(ofZone:)) }
}
