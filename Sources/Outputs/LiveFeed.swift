public import BlueZ
import Export
public import Foundation
public import HTTP
public import SensorCore
public import Session
public import Synchronization
import Workouts
import Zones

/// The live workout for web clients, as Server-Sent Events (`GET /api/live`): one subscription to
/// the session, read on a thread of its own, formatted once and written to every client.
///
/// Events (each `event: NAME` with one line of JSON):
/// - `snapshot`: everything known now (on connecting, and after a client fell behind);
/// - `values`: the latest value of each quantity that changed, at most 4 a second;
/// - `zone`: a zone update as `record --json --events` prints it; `state`; `event` (pause, lap,
///   sensor states, ...); `statistics`, once a second; `ended` when the workout ends;
/// - `relay`: the relay's state (`RelayStatus.json`) when it changes, with `--relay`, across
///   workouts.
///
/// A client that reads too slowly is never waited for: once its queue is full it gets nothing more
/// until the queue has drained, then a fresh `snapshot` (it is resynchronised).
public final class LiveFeed: Sendable {
    /// How often coalesced values go out.
    public static let valueInterval = Duration.milliseconds(250)

    private let state = Mutex(State())

    public init() {}

    private struct State {
        var clients: [Client] = []
        var controls: SessionControls?
        /// What the live page shows (the terminal dashboard's model), and the session's time zero
        /// while a workout runs.
        var model: DashboardModel?
        var anchor: ContinuousClock.Instant?
        /// The snapshot's parts.
        var values: [String: Double] = [:]
        var zones: [String: JSONValue] = [:]
        var workoutState = "waiting"
        /// The workout's start, an instant with its UTC offset (`TimeText`).
        var start: String?
        var statistics: JSONValue = .null
        var relay: RelayStatus?
        var elapsed = 0.0
        var lapStart = 0.0

        /// What the page shows now (the `live` event), while a workout runs.
        var page: JSONValue? {
            guard let anchor, let model else { return nil }
            return LiveFeed.json(model.state(at: .now - anchor))
        }
    }

    public final class Client: Sendable {
        public let stream: HTTPStream
        /// Fell behind: waits for its queue to drain, then gets a snapshot.
        public let behind = Atomic(false)
        public init(stream: HTTPStream) { self.stream = stream }
    }

    /// What the live screens show now, while a workout runs (nil between workouts): the class
    /// screen's tile of this feed's rider.
    public func currentState() -> DashboardState? {
        state.withLock { s in s.anchor.flatMap { anchor in s.model?.state(at: .now - anchor) } }
    }

    /// The session's controls while a workout runs (for `POST /api/session/...`).
    public var controls: SessionControls? { state.withLock { $0.controls } }

    /// A new client: its stream, which starts with a snapshot and holds at most `capacity` bytes unread.
    public func connect(capacity: Int = 64 * 1024) -> HTTPStream {
        let client = Client(stream: HTTPStream(capacity: capacity))
        state.withLock { s in
            client.stream.write(Self.message("snapshot", Self.snapshot(s)))
            s.clients.append(client)
        }
        return client.stream
    }

    /// Ends every client's stream (the server is stopping).
    public func closeAll() {
        let clients = state.withLock { s in
            defer { s.clients.removeAll() }
            return s.clients
        }
        for client in clients { client.stream.close() }
    }

    /// Follows `session` until it finishes, on a thread of its own; `controls` act on it meanwhile.
    /// `anchor` is the session's time zero; `model` the live screens' model of the workout (its
    /// sensors, zones, FTP and targets), as the terminal dashboard has it; `start` the workout's
    /// start, given with its offset in `timeZone` (the command's).
    public func follow(
        _ session: WorkoutSession, controls: SessionControls, anchor: ContinuousClock.Instant, model: DashboardModel,
        start: Date? = nil, timeZone: TimeZone = .current
    ) {
        let subscription = session.subscribe(capacity: 4096, samples: true)
        let startText = start.map { TimeText.instant($0, in: timeZone) }
        state.withLock { s in
            s.start = startText
            s.controls = controls
            s.model = model
            s.anchor = anchor
            s.values = [:]
            s.zones = [:]
            s.statistics = .null
            s.workoutState = "collecting"
            s.elapsed = 0
            s.lapStart = 0
        }
        broadcast("state", .object(["state": .string("collecting"), "start": startText.map(JSONValue.string) ?? .null]))
        // Named from inside (`Thread.nameCurrent`): on Linux, a name set before `start` never reaches the kernel.
        Thread { [self] in
            Thread.nameCurrent("sb.live")
            read(subscription)
        }.start()
    }

    /// The relay's state, for the page's relay line.
    public func showRelay(_ status: RelayStatus) {
        state.withLock { $0.relay = status }
        broadcast("relay", status.json)
    }

    /// A link event of the sensors, for the page's sensor lines.
    public func linkEvent(_ event: SensorLinkEvent) {
        state.withLock { s in
            guard let anchor = s.anchor else { return }
            s.model?.apply(event, now: .now - anchor, anchor: anchor)
        }
    }

    /// Events that wait for the next tick, sent with it in one write per client (statistics).
    private let deferred = Mutex<[UInt8]>([])

    private func read(_ subscription: SessionSubscription) {
        var pending: [String: Double] = [:]
        var lastValues = ContinuousClock.now
        while true {
            // Values wait at most until their next turn (4 a second), not for the next event.
            let event = subscription.next(timeout: max(Self.valueInterval - (ContinuousClock.now - lastValues), .milliseconds(1)))
            switch event {
            case .sample(let sample)?:
                pending[sample.type.identifier] = sample.value
                state.withLock { s in
                    s.elapsed = max(s.elapsed, sample.time.seconds)
                    s.model?.add(sample)
                }
            case .output(let output)?:
                state.withLock { $0.model?.apply(output) }
                publish(output)
            case .dropped?:
                // Values and statistics come again; nothing else to do.
                break
            case nil:
                if subscription.isFinished {
                    state.withLock { s in
                        s.controls = nil
                        s.anchor = nil
                        s.workoutState = "ended"
                    }
                    broadcast("ended", .object([:]))
                    return
                }
            }
            // Four times a second, in one write per client: the statistics that came, the values that
            // changed, and what the page shows. Nothing is formatted while nobody follows (the
            // snapshot is made from the state when one connects).
            if ContinuousClock.now - lastValues >= Self.valueInterval {
                lastValues = .now
                let values = pending
                pending.removeAll()
                var chunk = deferred.withLock { d in
                    defer { d.removeAll(keepingCapacity: true) }
                    return d
                }
                let (followed, page) = state.withLock { s in
                    s.values.merge(values) { $1 }
                    return (!s.clients.isEmpty, s.clients.isEmpty ? nil : s.page)
                }
                guard followed else { continue }
                if !values.isEmpty { chunk += Self.message("values", Self.object(values, JSONValue.number)) }
                if let page { chunk += Self.message("live", page) }
                if !chunk.isEmpty { broadcast(chunk) }
            }
        }
    }

    private func publish(_ output: WorkoutBuilderOutput) {
        switch output {
        case .zoneUpdate(let update):
            let json = WorkoutJSON.zoneUpdate(update, start: .zero)
            state.withLock { $0.zones[update.quantityType.identifier] = json }
            broadcast("zone", json)
        case .state(let builderState):
            state.withLock { $0.workoutState = builderState.rawValue }
            broadcast("state", .object(["state": .string(builderState.rawValue)]))
        case .event(let event):
            var object: JSONObject = ["type": .string(event.name), "t": .number(event.time.seconds)]
            switch event.kind {
            case .sensorState(let sensor, let sensorState):
                object.append("device", .string(sensor))
                object.append("state", .string(sensorState.rawValue))
            case .sensorLost(let sensor), .sensorRegained(let sensor): object.append("device", .string(sensor))
            case .lap: state.withLock { $0.lapStart = event.time.seconds }
            case .activity(let type): object.append("activityType", .string(type.rawValue))
            case .pause, .resume: break
            }
            broadcast("event", .object(object))
        case .statistics(let statistics, let time):
            let json = WorkoutJSON.statistics(statistics)
            state.withLock { s in
                s.statistics = json
                s.elapsed = max(s.elapsed, time.seconds)
            }
            // Once a second: it goes with the next tick.
            let message = Self.message("statistics", .object(["t": .number(time.seconds), "statistics": json]))
            deferred.withLock { $0 += message }
        }
    }

    /// Writes one event to every client at once.
    private func broadcast(_ name: String, _ data: JSONValue) {
        broadcast(Self.message(name, data))
    }

    /// Writes `message` (one or more events) to every client; a client that is behind gets a
    /// snapshot instead once it has read everything queued.
    private func broadcast(_ message: [UInt8]) {
        state.withLock { s in
            s.clients.removeAll { $0.stream.isClosed }
            for client in s.clients {
                if client.behind.load(ordering: .relaxed) {
                    guard client.stream.pendingCount == 0 else { continue }
                    if client.stream.write(Self.message("snapshot", Self.snapshot(s))) {
                        client.behind.store(false, ordering: .relaxed)
                    }
                } else if !client.stream.write(message) {
                    client.behind.store(true, ordering: .relaxed)
                }
            }
        }
    }

    private static func snapshot(_ s: State) -> JSONValue {
        return .object([
            "state": .string(s.workoutState), "start": s.start.map(JSONValue.string) ?? .null, "t": .number(s.elapsed),
            "lapStart": .number(s.lapStart),
            "values": object(s.values, JSONValue.number), "zones": object(s.zones) { $0 },
            "sensors": object(s.model?.sensorStatesNow ?? [:]) { .string($0.rawValue) }, "statistics": s.statistics,
            "live": s.page ?? .null, "relay": s.relay?.json ?? .null,
        ])
    }

    /// `dictionary` as a JSON object, its keys in order.
    public static func object<Value>(_ dictionary: [String: Value], _ json: (Value) -> JSONValue) -> JSONValue {
        var object = JSONObject()
        for (name, value) in dictionary.sorted(by: { $0.key < $1.key }) { object.append(name, json(value)) }
        return .object(object)
    }

    /// What the live page shows, as the `live` event carries it: times in seconds, zones with
    /// their colours (`ZonePalette`'s, as the SVG chart's), sensors with their state in MQTT's words
    /// (`SensorState`: `notifying` where the terminal says connected) and when a retry is due.
    public static func json(_ state: DashboardState) -> JSONValue {
        func number(_ value: Double?) -> JSONValue { value.map { .number(($0 * 10).rounded() / 10) } ?? .null }
        let zones: [JSONValue] = state.zones.map { zones in
            .object([
                "quantityType": .string(zones.configuration.quantityType.identifier),
                "current": zones.current.map { .number(Double($0)) } ?? .null,
                "inZoneFor": .number(zones.inZoneFor.seconds.rounded()),
                "durations": .array(zones.durations.map { .number($0.seconds.rounded()) }),
                "activityDurations": zones.activityDurations.map { .array($0.map { .number($0.seconds.rounded()) }) } ?? .null,
                "colors": .array(ZonePalette.hexColors(count: zones.durations.count).map(JSONValue.string)),
            ])
        }
        let sensors: [JSONValue] = state.sensors.map { sensor in
            .object([
                "key": .string(sensor.key), "name": .string(sensor.name), "link": .string(linkName(sensor.link)),
                "retryIn": sensor.link.retryIn.map { .number($0.seconds.rounded(.up)) } ?? .null,
                "battery": sensor.battery.map { .number(Double($0)) } ?? .null,
            ])
        }
        func figures(_ f: DashboardState.Figures) -> JSONValue {
            .object([
                "heartRate": number(f.heartRate), "power": number(f.power), "normalizedPower": number(f.normalizedPower),
                "energy": number(f.energy),
            ])
        }
        let targets: [JSONValue] = state.targets.map { t in
            .object([
                "label": .string(t.target.label), "currentZone": t.currentZone.map { .number(Double($0)) } ?? .null,
                "outFor": t.outFor.map { .number($0.seconds.rounded(.down)) } ?? .null, "alert": .bool(t.alert),
                "paused": .bool(t.paused),
            ])
        }
        return .object([
            "elapsed": .number(state.elapsed.seconds.rounded(.down)), "active": .number(state.active.seconds.rounded(.down)),
            "lap": .number(Double(state.lap)), "lapElapsed": .number(state.lapElapsed.seconds.rounded(.down)),
            "activity": state.activity.map { activity in
                .object([
                    "type": .string(activity.type.rawValue), "number": .number(Double(activity.number)),
                    "elapsed": .number(activity.elapsed.seconds.rounded(.down)),
                    "next": activity.next.map { .string($0.rawValue) } ?? .null,
                ])
            } ?? .null,
            "paused": state.paused.map { .string($0.rawValue) } ?? .null,
            "heartRate": number(state.heartRate), "power": number(state.power), "power3s": number(state.power3s),
            "power10s": number(state.power10s), "cadence": number(state.cadence),
            "dfaAlpha1": state.dfaAlpha1.map { .number(($0 * 100).rounded() / 100) } ?? .null,
            "functionalThresholdPower": number(state.functionalThresholdPower.map(Double.init)),
            "ride": figures(state.ride), "lapFigures": figures(state.lapFigures), "targets": .array(targets),
            "step": state.step.map(PlanText.json) ?? .null, "calories": number(state.calories.map { $0.rounded() }),
            "zonePoints": number(state.zonePoints.map { $0.rounded() }), "zones": .array(zones), "sensors": .array(sensors), "message": state.message.map(JSONValue.string) ?? .null,
        ])
    }

    /// A link's state in MQTT's words (`SensorState`: `notifying` where the terminal says connected).
    public static func linkName(_ link: DashboardState.Link) -> String {
        switch link {
        case .connecting: "connecting"
        case .connected: "notifying"
        case .stale: "stale"
        case .noContact: "noContact"
        case .invalid: "invalid"
        case .lost: "lost"
        }
    }

    /// `event: NAME\ndata: JSON\n\n`.
    public static func message(_ name: String, _ data: JSONValue) -> [UInt8] {
        Array("event: \(name)\ndata: \(data.serialized)\n\n".utf8)
    }
}
