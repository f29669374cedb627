public import BlueZ
import Foundation
public import GATT
public import SensorCore
public import Session
public import SampleRing
import Synchronization
public import WorkoutStore

/// Between the BlueZ threads and `sensorbridge serve`'s controller: notifications and link
/// events go through a `ServeSchedule` (under one lock) to the workout being recorded, if any; the
/// controller waits here for a workout to start, for it to go idle, or for the stop. Every link
/// event is logged as it happens, one line each.
///
/// The workout's source is fed under the lock, from the D-Bus thread and, for the notifications
/// held while the workout was set up, from the controller: each of its rings has one producer at a
/// time, and the lock orders their pushes.
public final class ServeRouter: Sendable {
    private struct State {
        var schedule: ServeSchedule<Parsed, SensorLinkEvent>
        var source: LiveSensorSource?
        var stopping = false
        /// The workout being recorded ends now (the API's end); serve goes on.
        var endRequested = false
        /// The last workout ended by `endWorkout`.
        var endedOnRequest = false
        /// The bus connection is gone: the workout ends, and serve with it (systemd restarts it).
        var busLost = false
        /// The display name of each sensor key.
        var names: [String: String] = [:]
        /// The last failure logged per sensor: a sensor asleep for hours logs it once, not every 30 s.
        var failures: [String: String] = [:]
    }

    private let state: Mutex<State>
    private let wake = DispatchSemaphore(value: 0)
    private let log: @Sendable (String) -> Void

    public init(idleTimeout: Duration, log: @escaping @Sendable (String) -> Void) {
        state = Mutex(State(schedule: ServeSchedule(idleTimeout: idleTimeout)))
        self.log = log
    }

    public func setNames(_ names: [String: String]) { state.withLock { $0.names = names } }

    /// Asks the controller to finish what it records and return; from any thread.
    public func stop() {
        state.withLock { $0.stopping = true }
        wake.signal()
    }

    public var isStopping: Bool { state.withLock { $0.stopping } }

    /// Whether the last workout ended through `endWorkout`.
    public var wasEndedOnRequest: Bool { state.withLock { $0.endedOnRequest } }

    /// Ends the workout being recorded, as if the sensors had gone idle; from any thread. The next
    /// measurement starts another.
    public func endWorkout() {
        state.withLock { $0.endRequested = true }
        wake.signal()
    }

    /// The D-Bus thread, when the bus connection is lost: stops like `stop`, remembering why.
    public func busLost() {
        state.withLock {
            $0.busLost = true
            $0.stopping = true
        }
        wake.signal()
    }

    public var isBusLost: Bool { state.withLock { $0.busLost } }

    /// Sleeps for `duration` or until `stop`; true when stopping.
    public func sleep(_ duration: Duration) -> Bool {
        _ = wake.wait(timeout: .now() + duration.seconds)
        return isStopping
    }

    /// Waits for the first measurement of a workout; its arrival, or nil once stopping.
    public func waitForWorkout() -> ContinuousClock.Instant? {
        while true {
            let (stopping, first) = state.withLock { s in
                (s.stopping, s.schedule.phase == .starting ? s.schedule.firstMeasurement : nil)
            }
            if stopping { return nil }
            if let first { return first }
            wake.wait()
        }
    }

    /// The workout is ready: `source` receives the notifications held since its first measurement,
    /// then every one until `waitForEnd` returns.
    public func begin(_ source: LiveSensorSource) {
        state.withLock { s in
            s.source = source
            for held in s.schedule.began() { source.received(held.notification, parsed: held.value) }
            source.publish()
        }
    }

    /// Shows the workout's consumer what its source staged; after each turn of the D-Bus thread.
    public func publish() {
        state.withLock { $0.source?.publish() }
    }

    /// Waits until no measurement has arrived for the idle timeout, or for `stop`; then detaches the
    /// workout's source and returns the arrival of its last measurement (its end).
    public func waitForEnd() -> ContinuousClock.Instant {
        while true {
            let (deadline, end) = state.withLock { s -> (ContinuousClock.Instant?, ContinuousClock.Instant?) in
                let deadline = s.schedule.idleDeadline
                guard s.stopping || s.endRequested || deadline.map({ $0 <= .now }) ?? true else { return (deadline, nil) }
                s.endedOnRequest = s.endRequested && !s.stopping
                s.endRequested = false
                s.source?.publish()
                s.source = nil
                return (nil, s.schedule.end() ?? .now)
            }
            if let end { return end }
            _ = wake.wait(timeout: .now() + max((deadline! - .now).seconds, 0.001))
        }
    }

    /// The D-Bus thread.
    public func received(_ notification: BlueZNotification) {
        // Parsed once, here: whether it counts for the schedule, and the session's samples.
        let parsed = Result { try GATTValue.decode(uuid: BluetoothUUID(UInt32(notification.uuid)), bytes: notification.bytes) }
        let start = state.withLock { s in
            let item = Parsed(notification: notification, value: parsed)
            switch s.schedule.notification(item, isMeasurement: Self.isMeasurement(parsed), at: notification.receivedAt) {
            case .drop, .hold:
                return false
            case .start:
                return true
            case .deliver(let events):
                for event in events { s.source?.linkEvent(event, names: s.names) }
                s.source?.received(notification, parsed: parsed)
                return false
            }
        }
        if start { wake.signal() }
    }

    /// A notification with what `GATTValue.decode` made of it, held until the workout begins.
    public struct Parsed {
        public let notification: BlueZNotification
        public let value: Result<GATTValue?, any Error>
    }

    /// Whether a notification parsed to a heart-rate, cycling-power or CSC measurement.
    public static func isMeasurement(_ parsed: Result<GATTValue?, any Error>) -> Bool {
        switch try? parsed.get() {
        case .heartRateMeasurement?, .cyclingPowerMeasurement?, .cscMeasurement?: true
        default: false
        }
    }

    /// The D-Bus thread (losses) and the link supervisor (the others).
    public func linkEvent(_ event: SensorLinkEvent) {
        let line = state.withLock { s -> String? in
            switch event {
            case .connected(let key, _):
                s.failures[key] = nil
                s.schedule.linkEvent(event)
                return "\(s.names[key] ?? key) connected"
            case .lost(let key, _):
                s.schedule.linkEvent(event)
                return "\(s.names[key] ?? key) lost; reconnecting"
            case .attemptFailed(let key, let error, _):
                let text = error.description
                guard s.failures[key] != text else { return nil }
                s.failures[key] = text
                return "\(s.names[key] ?? key): \(text); trying again every 1 to 30 s"
            case .value(let key, let uuid, let bytes):
                return LiveSensorSource.describe(uuid: uuid, bytes: bytes).map { "\(s.names[key] ?? key): \($0)" }
            case .stale, .notifying, .socketClosed:
                return LiveSensorSource.describe(event, names: s.names)
            }
        }
        if let line { log(line) }
    }
}

/// `serve`'s sensors as a session's source: the router hands their notifications to `source`
/// from the first measurement until the workout ends (an idle timeout, a stop, the bus lost);
/// then the end is pushed, at the router's end time.
public struct RoutedSensors: SensorSource {
    public let router: ServeRouter
    public let source: LiveSensorSource
    public let anchor: ContinuousClock.Instant

    public init(router: ServeRouter, source: LiveSensorSource, anchor: ContinuousClock.Instant) {
        (self.router, self.source, self.anchor) = (router, source, anchor)
    }

    public func produce(into ring: SampleRing<SessionItem>, started: ContinuousClock.Instant) {
        router.begin(source)
        let end = router.waitForEnd()
        _ = ring.push(.control(SessionControl(.end, at: end - anchor)))
    }
}

/// One of the recordings `serve` keeps going: an athlete (nil: the box's own profile) with their
/// sensors and router. Sensor keys are unique over all lanes (`Anna/hr`); in the workout a sensor
/// is named by its role (`hr`, `power`).
public struct ServeLane: Sendable {
    public let athlete: AthleteName?
    public let requests: [SensorRequest]
    public let router: ServeRouter
    /// Each sensor's id in the workout, by key, and its name there.
    public let sensorIDs: [String: SensorID]
    public let sensorNames: [SensorID: String]

    public init(athlete: AthleteName?, requests: [SensorRequest], router: ServeRouter) {
        self.athlete = athlete
        self.requests = requests
        self.router = router
        let ids = SensorID.numbering(requests.map { Self.role($0.key) })
        sensorIDs = Dictionary(uniqueKeysWithValues: requests.map { ($0.key, ids[Self.role($0.key)]!) })
        sensorNames = Dictionary(uniqueKeysWithValues: ids.map { ($1, $0) })
    }

    public var displayNames: [(key: String, name: String)] { requests.map { (key: $0.key, name: $0.device.name ?? $0.device.address) } }

    /// The sensors as the workout names them (by role, `hr`), with their display names: what its live screens show.
    public var roleNames: [(key: String, name: String)] { displayNames.map { (key: Self.role($0.key), name: $0.name) } }

    /// A sensor's role in the workout from its lane key: `Anna/hr` is `hr`.
    public static func role(_ key: String) -> String { key.split(separator: "/").last.map(String.init) ?? key }

    /// `log` with the athlete's name before each line.
    public static func log(_ log: @escaping @Sendable (String) -> Void, _ athlete: AthleteName?) -> @Sendable (String) -> Void {
        guard let athlete else { return log }
        return { log("\(athlete): " + $0) }
    }
}

/// Every lane's router, for what concerns them all: a stop, the bus lost, the end of a D-Bus turn.
/// A router added after a stop starts stopped.
public final class ServeRouters: Sendable {
    private let state = Mutex((routers: [ServeRouter](), stopped: false))

    public init() {}

    @discardableResult
    public func add(_ router: ServeRouter) -> ServeRouter {
        let stopped = state.withLock { s in
            s.routers.append(router)
            return s.stopped
        }
        if stopped { router.stop() }
        return router
    }

    public func stopAll() {
        for router in state.withLock({ s in s.stopped = true; return s.routers }) { router.stop() }
    }

    public func busLost() {
        for router in state.withLock({ $0.routers }) { router.busLost() }
    }

    public func publish() {
        for router in state.withLock({ $0.routers }) { router.publish() }
    }
}

extension SensorLinkEvent {
    /// The key of the sensor the event is about.
    public var key: String {
        switch self {
        case .connected(let key, _), .lost(let key, _), .attemptFailed(let key, _, _), .value(let key, _, _),
            .stale(let key, _, _), .notifying(let key, _), .socketClosed(let key, _):
            key
        }
    }

    /// The same event about the sensor keyed `key` (a lane's `Anna/hr` as the workout's `hr`).
    public func rekeyed(_ key: String) -> SensorLinkEvent {
        switch self {
        case .connected(_, let at): .connected(key: key, at: at)
        case .lost(_, let at): .lost(key: key, at: at)
        case .attemptFailed(_, let error, let retryIn): .attemptFailed(key: key, error, retryIn: retryIn)
        case .value(_, let uuid, let bytes): .value(key: key, uuid: uuid, bytes: bytes)
        case .stale(_, let uuid, let silentFor): .stale(key: key, uuid: uuid, silentFor: silentFor)
        case .notifying(_, let uuid): .notifying(key: key, uuid: uuid)
        case .socketClosed(_, let uuid): .socketClosed(key: key, uuid: uuid)
        }
    }
}
