public import SensorCore
public import Session
public import Workouts

/// Each sensor's state as the session's event stream tells it, by the builder's own rule: every
/// sensor is `connecting` when the workout starts; a sample makes a connecting or lost sensor
/// `notifying` (a first value is no event); `sensorLost` makes it `lost`, `sensorRegained`
/// `connecting`, and a `sensorState` event gives its state (`stale`, `noContact`, `invalid`, or
/// `notifying` again). The one source of sensor states for every live output: MQTT's `sensor/KEY`,
/// the live page and `GET /api/live`, and the terminal dashboard.
public struct SensorStates: Sendable, Equatable {
    /// The state of each sensor by its session key (`hr`, `power`).
    private(set) var states: [String: SensorState]
    /// The session's key of each sensor id.
    private let keys: [SensorID: String]

    /// - Parameters:
    ///   - keys: the session's key of each sensor id (what its samples carry).
    ///   - sensors: keys known before any value, connecting until their first.
    public init(keys: [SensorID: String], sensors: [String] = []) {
        self.keys = keys
        states = Dictionary((sensors + keys.values).map { ($0, SensorState.connecting) }) { first, _ in first }
    }

    public subscript(key: String) -> SensorState? { states[key] }

    /// The session's key of `sensor`.
    public func key(of sensor: SensorID) -> String? { keys[sensor] }

    /// A sample: its sensor's new state when the sample changed it.
    public mutating func add(_ sample: Sample) -> (key: String, state: SensorState)? {
        guard let key = keys[sample.sensor] else { return nil }
        switch states[key] {
        case nil, .connecting?, .lost?:
            states[key] = .notifying
            return (key, .notifying)
        case .notifying?, .stale?, .noContact?, .invalid?:
            return nil
        }
    }

    /// A builder output: the sensor and the state an event gives it (also when it is the state
    /// it had: each event is news).
    public mutating func apply(_ output: WorkoutBuilderOutput) -> (key: String, state: SensorState)? {
        guard case .event(let event) = output else { return nil }
        let change: (String, SensorState)? =
            switch event.kind {
            case .sensorLost(let key): (key, .lost)
            case .sensorRegained(let key): (key, .connecting)
            case .sensorState(let key, let state): (key, state)
            case .pause, .resume, .lap, .activity: nil
            }
        guard let (key, state) = change else { return nil }
        states[key] = state
        return (key, state)
    }

    /// A session event (`SessionSubscription.next`): the change it makes, if any.
    public mutating func apply(_ event: SessionEvent) -> (key: String, state: SensorState)? {
        switch event {
        case .sample(let sample): add(sample)
        case .output(let output): apply(output)
        case .dropped: nil
        }
    }

    /// Sets `key`'s state directly (a model fed by hand, as in tests of the dashboard).
    public mutating func set(_ key: String, _ state: SensorState) { states[key] = state }
}
