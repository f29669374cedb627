public import SensorCore
public import Zones

extension Workout {
    /// Each activity's figures, in order (DESIGN.md §3 "Training load"): for a workout of one
    /// activity, the workout's stored statistics and zone groups; for several, each activity's
    /// statistics worked out from the samples (`WorkoutSpanSummary`) with its stored zone groups.
    /// What the FIT sessions carry and what each activity's load is computed from.
    public func activitySummaries() -> [WorkoutSpanSummary] {
        guard activities.count > 1 else {
            return [WorkoutSpanSummary(range: start..<end, pauses: pauses, statistics: statistics, zoneGroups: zoneGroupsByType)]
        }
        let samplesByType = zonedSamplesByType
        return activities.map { activity in
            var summary = WorkoutSpanSummary(
                of: activity.start..<activity.end, in: self,
                configurations: activity.zoneGroupsByType.mapValues(\.configuration), samplesByType: samplesByType)
            summary.zoneGroups = activity.zoneGroupsByType
            return summary
        }
    }

    /// The active time the zone rule credits to each distinct value of `type`, by increasing value:
    /// what `zone_value_durations` keeps for a stored workout. Within `range` when given (an
    /// activity): the time credited up to its end less the time credited up to its start, so a
    /// sample held across the boundary counts on each side for its part, as in the zone groups.
    /// - Parameter hold: the zone rule's hold (the default for the type when nil).
    public func timeAtEachValue(
        of type: QuantityType, in range: Range<Duration>? = nil, hold: Duration? = nil
    ) -> [(value: Double, duration: Duration)] {
        let hold = hold ?? ZoneClassifier.defaultMaximumHold(for: type)
        let samples = samplesWithHoldEnds
        func durations(until cut: Duration) -> ValueDurations? {
            let end = min(max(cut, start), self.end)
            let cutPauses = pauses.compactMap { WorkoutSpanSummary.clamp($0, to: start..<end) }
            guard let timeline = try? WorkoutTimeline(start: start, end: end, pauses: cutPauses) else { return nil }
            return ValueDurations(samples, of: type, start: start, timeline: timeline, hold: hold)
        }
        guard let range, range != start..<end else {
            guard let whole = durations(until: end) else { return [] }
            return zip(whole.values, whole.durations).map { ($0, .nanoseconds($1)) }
        }
        guard let atEnd = durations(until: range.upperBound) else { return [] }
        var credited: [Double: Int64] = [:]
        for (value, duration) in zip(atEnd.values, atEnd.durations) { credited[value, default: 0] += duration }
        if range.lowerBound > start, let atStart = durations(until: range.lowerBound) {
            for (value, duration) in zip(atStart.values, atStart.durations) { credited[value, default: 0] -= duration }
        }
        return credited.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { ($0.key, .nanoseconds($0.value)) }
    }

    /// The workout's training load with `athlete`'s thresholds: each activity's load from its own
    /// figures (power TSS where the activity has NP and the profile an FTP, hrTSS where it has heart
    /// rate and the profile resting, maximum and threshold heart rate), and for several activities
    /// the workout's as their sum (`WorkoutLoad(summing:...)`).
    /// - Parameters:
    ///   - day: the workout's day, for an age from a birth date.
    ///   - heartRateHold: the zone rule's hold for heart rate the workout was stored with.
    ///   - summaries: `activitySummaries()`, when the caller has them already.
    public func trainingLoad(
        athlete: AthleteProfile?, on day: CalendarDate?, heartRateHold: Duration? = nil,
        summaries: [WorkoutSpanSummary]? = nil
    ) -> WorkoutLoad {
        guard activities.count > 1 else {
            var load = WorkoutLoad(
                activeDuration: activeDuration, normalizedPower: statistics.cyclingPower?.normalized,
                heartRateTimes: timeAtEachValue(of: .heartRate, hold: heartRateHold), zoneGroups: zoneGroupsByType,
                athlete: athlete, on: day)
            load.activities = [load]
            return load
        }
        let parts = zip(activities, summaries ?? activitySummaries()).map { activity, summary in
            WorkoutLoad(
                activeDuration: summary.timerTime, normalizedPower: summary.statistics.cyclingPower?.normalized,
                heartRateTimes: timeAtEachValue(of: .heartRate, in: activity.start..<activity.end, hold: heartRateHold),
                zoneGroups: activity.zoneGroupsByType, athlete: athlete, on: day)
        }
        var load = WorkoutLoad(summing: parts, athlete: athlete)
        load.normalizedPower = statistics.cyclingPower?.normalized
        load.intensity = WorkoutLoad.intensity(zoneGroupsByType)
        return load
    }
}
