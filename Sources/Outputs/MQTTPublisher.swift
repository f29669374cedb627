public import Foundation
public import MQTT
public import SensorCore
public import Session
import Synchronization
public import Workouts
public import WorkoutStore

/// `--mqtt`: publishes what `record` or `serve` records to a broker (`MQTTTopics`), through one
/// connection that lives from `start` to `stop`, across workouts.
///
/// A thread of its own (`sb.mqtt.events`) follows the current workout's session through a
/// `SessionSubscription` (a bounded queue the session never waits on) and hands messages to an
/// `MQTTClient` (its own thread, its own bounded queue): a broker that is away, slow or
/// restarting never holds up the recording. Live values are coalesced to at most 4 a second per
/// quantity. Connection changes, and what was dropped, are logged one line each.
public final class MQTTPublisher: Sendable {
    /// The shortest time between two live values of one quantity.
    public static let liveInterval = Duration.milliseconds(250)

    public let topics: MQTTTopics
    private let client: MQTTClient?
    /// Whether the connection is this publisher's own (the bridge's), which `stop` closes; a
    /// class's riders' publishers share it (`rider(_:)`).
    private let ownsClient: Bool
    private let log: @Sendable (String) -> Void
    private let state = Mutex(Shared())
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    private struct Shared {
        /// The workout being followed, its sensors' states when it started (`SensorStates`) and its
        /// plan's coach (`--plan`).
        var following: (subscription: SessionSubscription, sensors: SensorStates, steps: StepCoach?)?
        /// Waits for the followed session to finish, then goes out after its last event.
        var summary: MQTTMessage?
        var stopping = false
    }

    /// `timeZone`: the zone whose offset the published instants carry (the command's `TZ`).
    public init(_ broker: MQTTBroker, timeZone: TimeZone, log: @escaping @Sendable (String) -> Void) {
        topics = MQTTTopics(broker: broker, timeZone: timeZone)
        self.log = log
        let options = MQTTConnectionOptions(
            host: broker.host, port: broker.port, tls: broker.tls, username: broker.username, password: broker.password,
            clientID: "sensorbridge-\(broker.bridgeID)-\(getpid())", availabilityTopic: topics.availability)
        let url = broker.url
        do {
            client = try MQTTClient(options) { event in
                switch event {
                case .connected(let again, let dropped, let notSent, let attempts, let away):
                    var line = "MQTT: connected to \(url)" + (again ? " again" : "")
                    if again || attempts > 1 {
                        let seconds = Int(away.seconds.rounded())
                        line += (again ? " after \(seconds) s away" : " after \(seconds) s")
                            + " (\(attempts) attempt\(attempts == 1 ? "" : "s"))"
                    }
                    if dropped > 0 { line += "; \(dropped) zone, event and state messages were dropped while it was away (queue full)" }
                    if notSent > 0 { line += "; \(notSent) live values were not sent meanwhile" }
                    log(line)
                case .connectionLost(let reason):
                    log("MQTT: lost the connection to \(url) (\(reason)); reconnecting, the recording goes on")
                case .cannotConnect(let reason):
                    log("MQTT: cannot connect to \(url) (\(reason)); trying again, the recording goes on")
                }
            }
        } catch {
            client = nil
            log("MQTT: \(error.function) failed (\(error)); nothing is published")
        }
        ownsClient = true
        start()
    }

    /// A class's rider's publisher (`serve` with several athletes): their topics under
    /// `PREFIX/BRIDGE-ID/ATHLETE/`, a Home Assistant device of their own, on this publisher's
    /// connection (its `status` says whether they are online too), following their workouts.
    public func rider(_ athlete: AthleteName) -> MQTTPublisher {
        MQTTPublisher(topics: MQTTTopics(broker: topics.broker, timeZone: topics.timeZone, athlete: athlete), client: client, log: log)
    }

    private init(topics: MQTTTopics, client: MQTTClient?, log: @escaping @Sendable (String) -> Void) {
        self.topics = topics
        self.client = client
        self.log = log
        ownsClient = false
        start()
    }

    /// Publishes the discovery and starts following.
    private func start() {
        for message in topics.discovery() { client?.publish(message) }
        let thread = Thread { [self] in
            Thread.nameCurrent("sb.mqtt.events")
            follow()
            done.signal()
        }
        thread.start()
    }

    /// Follows `session` from now on (the previous workout's session, if any, was finished):
    /// `start` is its workout's start, `sensors` its sensors' keys, `steps` its plan's coach.
    public func follow(_ session: WorkoutSession, start: Date, sensors: [SensorID: String], steps: StepCoach? = nil) {
        let subscription = session.subscribe()
        client?.publish(topics.workoutState(.collecting))
        client?.publish(topics.started(start))
        let states = SensorStates(keys: sensors)
        for (key, state) in states.states.sorted(by: { $0.key < $1.key }) { client?.publish(topics.sensorState(key, state)) }
        if let steps, let step = DashboardState.Step(steps, at: .zero) { client?.publish(topics.step(step)) }
        state.withLock { $0.following = (subscription, states, steps) }
        wake.signal()
    }

    /// Publishes the finished workout (retained), after the last event of its session.
    public func finished(_ workout: Workout, id: WorkoutID?, identity: WorkoutIdentity?) {
        let message = topics.summary(workout, id: id, identity: identity)
        state.withLock { $0.summary = message }
        wake.signal()
    }

    /// Publishes what waits (for up to about 2 s while connected), says `offline`, disconnects; a
    /// rider's publisher only stops following (its riders are stopped before the bridge's).
    public func stop() {
        state.withLock { $0.stopping = true }
        wake.signal()
        _ = done.wait(timeout: .now() + 3)
        guard ownsClient, let client else { return }
        let undelivered = client.stop(within: .seconds(2))
        if undelivered > 0 {
            log("MQTT: \(undelivered) zone, event and state messages were not delivered to \(topics.broker.url)")
        }
    }

    /// The thread: the current session's events to messages, until `stop`.
    private func follow() {
        var live = LiveValues()
        // The followed workout's sensor states, by the rule the live page and the dashboard follow too.
        var sensorStates: (of: ObjectIdentifier, states: SensorStates)?
        var latest = Duration.zero
        var skipped = 0
        // The rolling DFA α1 of the RR intervals received while active; a pause or the strap's
        // values stopping end the run, as for the stored workout.
        var alpha1 = DFAAlpha1Windows()
        var (paused, rrSensor): (Bool, SensorID?) = (false, nil)
        // The plan's step under way, and whether its alert was on when last published.
        var steps: StepCoach?
        var stepAlert = false
        while true {
            let (following, summary, stopping) = state.withLock { ($0.following, $0.summary, $0.stopping) }
            if let following, !following.subscription.isFinished {
                let followed = ObjectIdentifier(following.subscription)
                if sensorStates?.of != followed {
                    sensorStates = (followed, following.sensors)
                    (alpha1, paused, rrSensor) = (DFAAlpha1Windows(), false, nil)
                    (steps, stepAlert) = (following.steps, false)
                }
                if let event = following.subscription.next(timeout: .milliseconds(100)) {
                    let change = sensorStates?.states.apply(event)
                    switch event {
                    case .sample(let sample):
                        latest = max(latest, sample.time)
                        steps?.add(sample)
                        if let message = live.add(sample, now: .now, topics: topics) { client?.publish(message) }
                        if sample.type == .rrInterval, !paused {
                            rrSensor = sample.sensor
                            for window in alpha1.add(sample.value, at: sample.time) { client?.publish(topics.dfaAlpha1(window.alpha1)) }
                        }
                    case .output(let output):
                        if case .event(let event) = output, event.kind == .pause || event.kind == .resume {
                            paused = event.kind == .pause
                            if paused { for window in alpha1.endRun() { client?.publish(topics.dfaAlpha1(window.alpha1)) } }
                        }
                        apply(output, latest: &latest)
                        // A step begun, and the plan's end (`{"number":null}`), retained for whoever comes.
                        if steps?.apply(output) == true, let coach = steps {
                            client?.publish(DashboardState.Step(coach, at: latest).map(topics.step) ?? topics.planDone())
                            stepAlert = false
                        }
                        if case .state(.ended) = output, steps?.current != nil { client?.publish(topics.planDone()) }
                    case .dropped(let count):
                        skipped += count
                    }
                    if let (key, state) = change {
                        client?.publish(topics.sensorState(key, state))
                        if state != .notifying, let rrSensor, sensorStates?.states.key(of: rrSensor) == key {
                            for window in alpha1.endRun() { client?.publish(topics.dfaAlpha1(window.alpha1)) }
                        }
                    }
                }
                for message in live.due(now: .now, topics: topics) { client?.publish(message) }
                // The step again when its alert starts or ends (out of its target for the debounce time).
                if let coach = steps, let step = DashboardState.Step(coach, at: latest), step.alert != stepAlert {
                    stepAlert = step.alert
                    client?.publish(topics.step(step))
                }
                continue
            }
            for message in live.due(now: nil, topics: topics) { client?.publish(message) }
            if following != nil {
                state.withLock { $0.following = nil }
                if skipped > 0 { log("MQTT: \(skipped) session events were skipped (the publisher fell behind)") }
                (sensorStates, latest, skipped) = (nil, .zero, 0)
            }
            if let summary {
                client?.publish(summary)
                state.withLock { $0.summary = nil }
            }
            if stopping { return }
            _ = wake.wait(timeout: .now() + 1)
        }
    }

    /// What `output` publishes besides sensor states (`SensorStates` gives those).
    private func apply(_ output: WorkoutBuilderOutput, latest: inout Duration) {
        switch output {
        case .zoneUpdate(let update):
            latest = max(latest, update.time)
            client?.publish(topics.zoneUpdate(update))
        case .state(let builderState):
            if builderState == .ended { client?.publish(topics.ended(at: latest)) }
            client?.publish(topics.workoutState(builderState))
        case .event(let event):
            latest = max(latest, event.time)
            if let message = topics.event(event) { client?.publish(message) }
        case .statistics(_, let at):
            latest = max(latest, at)
        }
    }
}

/// The live values of one workout, coalesced: a value goes out at once when its quantity's last
/// went out at least `MQTTPublisher.liveInterval` ago, else the latest waits for that moment.
public struct LiveValues {
    private var sent: [QuantityType: ContinuousClock.Instant] = [:]
    private var waiting: [QuantityType: Double] = [:]

    public mutating func add(_ sample: Sample, now: ContinuousClock.Instant, topics: MQTTTopics) -> MQTTMessage? {
        guard let message = topics.live(sample.type, sample.value) else { return nil }
        if let last = sent[sample.type], now - last < MQTTPublisher.liveInterval {
            waiting[sample.type] = sample.value
            return nil
        }
        sent[sample.type] = now
        waiting[sample.type] = nil
        return message
    }

    /// The waiting values whose moment has come (all of them when `now` is nil: the workout ended).
    public mutating func due(now: ContinuousClock.Instant?, topics: MQTTTopics) -> [MQTTMessage] {
        guard !waiting.isEmpty else { return [] }
        var messages: [MQTTMessage] = []
        for (type, value) in waiting.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            if let now, let last = sent[type], now - last < MQTTPublisher.liveInterval { continue }
            if let now { sent[type] = now }
            waiting[type] = nil
            if let message = topics.live(type, value) { messages.append(message) }
        }
        if now == nil { sent = [:] }
        return messages
    }
}
