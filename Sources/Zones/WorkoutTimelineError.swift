/// Why a start, an end and pauses do not make a `WorkoutTimeline`.
public enum WorkoutTimelineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The end is before the start.
    case endBeforeStart(start: Duration, end: Duration)
    /// A pause (0-based position in the list) starts before the start, or before the previous
    /// pause ends, or ends after the end.
    case pauseOutOfOrder(index: Int, pause: Range<Duration>)

    public var description: String {
        switch self {
        case .endBeforeStart(let start, let end):
            "the workout ends (\(end.seconds) s) before it starts (\(start.seconds) s)"
        case .pauseOutOfOrder(let index, let pause):
            "pause \(index + 1) (\(pause.lowerBound.seconds) s to \(pause.upperBound.seconds) s) overlaps the one "
                + "before it or lies outside the workout; pauses must be in order, apart and within start...end"
        }
    }
}
