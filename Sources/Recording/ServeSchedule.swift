/// When `sensorbridge serve` starts and ends workouts, as a pure state machine (event in, action
/// out; no clock, no I/O) that serve's router keeps behind its lock.
///
/// Waiting, the first decoded measurement starts a workout at its arrival: it and whatever arrives
/// while the workout is being set up are held (`starting`) and handed over by `began()`. Recording,
/// every measurement moves the idle deadline to its arrival plus `idleTimeout`; `end()` ends the
/// workout at the last measurement, not at the deadline. Link events (a sensor lost, regained)
/// while recording are held back until the next measurement: those before it belong to the
/// workout, those after the last one (sensors going to sleep once the ride is over) do not.
public struct ServeSchedule<Notification, LinkEvent> {
    public enum Phase: Equatable, Sendable {
        /// No workout; connected sensors are quiet.
        case waiting
        /// The first measurement arrived; the workout is being set up.
        case starting
        case recording
    }

    /// What to do with a notification.
    public enum Action {
        /// Not part of any workout (no measurement while waiting).
        case drop
        /// Held until `began()`; `.start` for the first, which asks for a workout.
        case start, hold
        /// Hand the link events, then the notification, to the workout.
        case deliver(after: [LinkEvent])
    }

    public let idleTimeout: Duration
    public private(set) var phase = Phase.waiting
    /// The arrival of the workout's first measurement.
    public private(set) var firstMeasurement: ContinuousClock.Instant?
    /// The arrival of the workout's latest measurement.
    public private(set) var lastMeasurement: ContinuousClock.Instant?
    private var held: [Notification] = []
    private var linkEvents: [LinkEvent] = []

    public init(idleTimeout: Duration) {
        self.idleTimeout = idleTimeout
    }

    /// A notification arrived at `time`; `isMeasurement` when it decodes to a heart-rate,
    /// cycling-power or CSC measurement.
    public mutating func notification(_ notification: Notification, isMeasurement: Bool, at time: ContinuousClock.Instant)
        -> Action
    {
        switch phase {
        case .waiting:
            guard isMeasurement else { return .drop }
            phase = .starting
            held = [notification]
            (firstMeasurement, lastMeasurement) = (time, time)
            return .start
        case .starting:
            held.append(notification)
            if isMeasurement { lastMeasurement = time }
            return .hold
        case .recording:
            guard isMeasurement else { return .deliver(after: []) }
            lastMeasurement = time
            defer { linkEvents.removeAll() }
            return .deliver(after: linkEvents)
        }
    }

    /// A link event; kept for the workout until the next measurement shows it belongs to it.
    public mutating func linkEvent(_ event: LinkEvent) {
        if phase != .waiting { linkEvents.append(event) }
    }

    /// The workout is set up: the notifications held since the first measurement, to deliver in
    /// order.
    public mutating func began() -> [Notification] {
        guard phase == .starting else { return [] }
        phase = .recording
        defer { held.removeAll() }
        return held
    }

    /// When the workout ends unless a measurement comes first; nil when none is recording.
    public var idleDeadline: ContinuousClock.Instant? {
        phase == .recording ? lastMeasurement.map { $0 + idleTimeout } : nil
    }

    /// Ends the workout: back to waiting; returns its end, the arrival of its last measurement.
    /// Link events since then are dropped.
    public mutating func end() -> ContinuousClock.Instant? {
        defer {
            phase = .waiting
            held.removeAll()
            linkEvents.removeAll()
            (firstMeasurement, lastMeasurement) = (nil, nil)
        }
        return phase == .recording ? lastMeasurement : nil
    }
}

extension ServeSchedule.Action: Equatable where LinkEvent: Equatable {}
