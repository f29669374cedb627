public import SensorCore

/// Time per zone for one quantity type over a workout or an activity, as HealthKit's
/// `HKWorkoutZoneGroup` (DESIGN.md §3 "Zones").
///
/// The durations are exact sums of `Duration` differences between sample times, pauses and the
/// end, so they never add up to more than the active time they came from.
public struct WorkoutZoneGroup: Sendable, Hashable {
    /// The zones the time was sorted into.
    public let configuration: WorkoutZoneConfiguration
    /// Time in each zone, indexed like `configuration.zones`.
    public let durations: [Duration]

    /// A group with no time in any zone.
    public init(configuration: WorkoutZoneConfiguration) {
        self.configuration = configuration
        self.durations = Array(repeating: .zero, count: configuration.zones.count)
    }

    /// A group from stored durations, one per zone, none negative.
    public init(configuration: WorkoutZoneConfiguration, durations: [Duration]) throws(WorkoutZoneGroupError) {
        guard durations.count == configuration.zones.count else {
            throw .durationCount(expected: configuration.zones.count, actual: durations.count)
        }
        if let index = durations.firstIndex(where: { $0 < .zero }) {
            throw .negativeDuration(zoneIndex: index, duration: durations[index])
        }
        self.init(configuration: configuration, checkedDurations: durations)
    }

    /// For callers that have already checked the count and signs.
    init(configuration: WorkoutZoneConfiguration, checkedDurations: [Duration]) {
        self.configuration = configuration
        self.durations = checkedDurations
    }

    /// Each zone with its time, low to high.
    public var zoneDurations: [WorkoutZoneDuration] {
        zip(configuration.zones, durations).map { WorkoutZoneDuration(zone: $0, duration: $1) }
    }

    /// Zone `index` with its time.
    public func zoneDuration(ofZone index: Int) -> WorkoutZoneDuration {
        WorkoutZoneDuration(zone: configuration.zones[index], duration: durations[index])
    }

    /// The time in all zones together (never more than the active time it came from).
    public var totalDuration: Duration { durations.reduce(.zero, +) }

    /// Zone by zone sum with a group of the same zones (the source may differ; this group's is kept).
    public func adding(_ other: WorkoutZoneGroup) throws(WorkoutZoneGroupError) -> WorkoutZoneGroup {
        guard configuration.hasSameZones(as: other.configuration) else { throw .differentZones }
        return summing(other)
    }

    /// `adding` without the check; `other` has the same zones.
    private func summing(_ other: WorkoutZoneGroup) -> WorkoutZoneGroup {
        WorkoutZoneGroup(configuration: configuration, checkedDurations: zip(durations, other.durations).map(+))
    }

    /// Zone by zone difference with an earlier snapshot of the same classifier: the time between
    /// the two, as for one activity of a multisport workout.
    public func subtracting(_ earlier: WorkoutZoneGroup) throws(WorkoutZoneGroupError) -> WorkoutZoneGroup {
        guard configuration.hasSameZones(as: earlier.configuration) else { throw .differentZones }
        let difference = zip(durations, earlier.durations).map(-)
        return try WorkoutZoneGroup(configuration: configuration, durations: difference)
    }

    /// Time per zone over many workouts: groups with the same zones (whatever their source) are
    /// summed, one result per distinct configuration, in order of first appearance.
    ///
    /// To compare workouts recorded with different zones (5 against 7), re-bucket their raw samples
    /// into one configuration with `init(rebucketing:into:timeline:maximumHold:)` first; then this
    /// returns a single group.
    public static func totals(of groups: some Sequence<WorkoutZoneGroup>) -> [WorkoutZoneGroup] {
        var totals: [WorkoutZoneGroup] = []
        for group in groups {
            if let index = totals.firstIndex(where: { $0.configuration.hasSameZones(as: group.configuration) }) {
                totals[index] = totals[index].summing(group)
            } else {
                totals.append(group)
            }
        }
        return totals
    }
}

extension WorkoutZoneGroup {
    /// `{"configuration": {...}, "zoneDurations": [{"index": 0, "duration": 12.5}, ...]}` with durations
    /// in seconds; the shape `replay --json` prints (issue 5).
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object.append("configuration", configuration.jsonValue)
        object.append(
            "zoneDurations",
            .array(
                durations.enumerated().map { index, duration in
                    var entry = JSONObject()
                    entry.append("index", .number(Double(index)))
                    entry.append("duration", .number(duration.seconds))
                    return .object(entry)
                }))
        return .object(object)
    }
}
