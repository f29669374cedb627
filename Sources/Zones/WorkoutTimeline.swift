/// When a stored workout was active: its start and end and its pauses, from the session anchor.
/// Re-bucketing replays a workout's raw samples against it (DESIGN.md §3 "Zones").
public struct WorkoutTimeline: Sendable, Hashable {
    /// When collection began.
    public let start: Duration
    /// When the workout ended.
    public let end: Duration
    /// Paused intervals `[pause, resume)`, in order, apart (touching is fine), within `start...end`;
    /// a workout that ended while paused has a last pause ending at `end`.
    public let pauses: [Range<Duration>]

    /// - Throws: `WorkoutTimelineError` when the end is before the start or a pause is out of order
    ///   or outside the workout.
    public init(start: Duration = .zero, end: Duration, pauses: [Range<Duration>] = []) throws(WorkoutTimelineError) {
        guard start <= end else { throw .endBeforeStart(start: start, end: end) }
        var earliest = start
        for (index, pause) in pauses.enumerated() {
            guard pause.lowerBound >= earliest, pause.upperBound <= end else {
                throw .pauseOutOfOrder(index: index, pause: pause)
            }
            earliest = pause.upperBound
        }
        self.start = start
        self.end = end
        self.pauses = pauses
    }

    /// The time not paused between start and end: the most time a zone group of it can hold.
    public var activeDuration: Duration {
        pauses.reduce(end - start) { $0 - ($1.upperBound - $1.lowerBound) }
    }
}
