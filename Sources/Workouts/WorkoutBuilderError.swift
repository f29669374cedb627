public import SensorCore
public import Zones

/// What a workout builder refuses, with the reason.
public enum WorkoutBuilderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `action` is not possible in `state` (pause while paused, resume while collecting, ...).
    case invalidTransition(action: String, state: WorkoutBuilderState)
    /// Custom zones are set for one workout before `beginCollection`, never after.
    case customZonesAfterStart(QuantityType)
    /// The zones are for a quantity type the builder does not classify.
    case unsupportedZoneQuantity(QuantityType)

    public var description: String {
        switch self {
        case .invalidTransition(let action, let state):
            "cannot \(action) a workout that is \(state.rawValue)"
        case .customZonesAfterStart(let type):
            "custom \(type.identifier) zones must be set before collection begins"
        case .unsupportedZoneQuantity(let type):
            "zones are for heartRate and cyclingPower, not \(type.identifier)"
        }
    }
}

/// The states of a workout builder: notStarted → collecting ⇄ paused → ended → finished, or
/// discarded from any state but finished.
public enum WorkoutBuilderState: String, Sendable, Hashable {
    case notStarted, collecting, paused, ended, finished, discarded
}

/// What the builder tells its callers as it goes.
public enum WorkoutBuilderOutput: Sendable {
    /// The current zone of a quantity changed (including to or from no zone).
    case zoneUpdate(ZoneUpdate)
    /// The state changed.
    case state(WorkoutBuilderState)
    /// A pause, resume, lap, activity change or sensor lost/regained.
    case event(WorkoutEvent)
    /// Running statistics, at most once a second of workout time.
    case statistics(WorkoutStatistics, at: Duration)
}
