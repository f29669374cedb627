public import SensorCore

/// Why a `ZoneClassifier` refused an event. A refused event leaves the classifier as it was.
public enum ZoneClassifierError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Samples, pauses, resumes and the end must come in time order, none before the start.
    case outOfOrder(time: Duration, latest: Duration)
    /// A NaN value belongs to no zone.
    case notANumber(time: Duration)
    /// The sample measures another quantity type than the classifier's configuration.
    case wrongQuantityType(QuantityType, expected: QuantityType)
    /// `pause` while already paused.
    case alreadyPaused(time: Duration)
    /// `resume` while not paused.
    case notPaused(time: Duration)
    /// Any event after `end`.
    case ended(time: Duration)

    public var description: String {
        switch self {
        case .outOfOrder(let time, let latest):
            "an event at \(time.seconds) s came after one at \(latest.seconds) s; events must come in time order"
        case .notANumber(let time): "the sample at \(time.seconds) s is not a number"
        case .wrongQuantityType(let type, let expected):
            "a \(type.identifier) sample was given to the \(expected.identifier) zone classifier"
        case .alreadyPaused(let time): "pause at \(time.seconds) s while already paused"
        case .notPaused(let time): "resume at \(time.seconds) s while not paused"
        case .ended(let time): "event at \(time.seconds) s after the end of the workout"
        }
    }
}
