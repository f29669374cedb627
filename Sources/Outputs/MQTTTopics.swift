public import Foundation
public import MQTT
public import SensorCore
public import Workouts
public import WorkoutStore
public import Zones

/// The messages SensorBridge publishes, under `PREFIX/BRIDGE-ID/`, or a class's rider's under
/// `PREFIX/BRIDGE-ID/ATHLETE/` (pure: what to publish, not when). `status` is the connection's, the
/// bridge's only.
///
/// | topic | QoS | retained | payload |
/// |---|---|---|---|
/// | `status` | 1 | yes | `online`, `offline` (the will) |
/// | `heart_rate`, `power`, `cadence` | 0 | no | the latest value (bpm, W, rpm), at most 4 a second each |
/// | `zone/heart_rate`, `zone/power` | 1 | no | a zone update, as `--json --events` prints one |
/// | `dfa_alpha1` | 0 | no | DFA α1 of each new 2-minute window of RR intervals (about every 5 s), to hundredths |
/// | `event` | 1 | no | `start`, `pause`, `resume`, `lap`, `activity`, `end`, as the workout's `events` |
/// | `step` | 1 | yes | with `--plan`, the step under way (`/api/live`'s `step`) as it begins and as its alert starts and ends; `{"number":null}` once the plan is done or the workout ends |
/// | `sensor/KEY` | 1 | yes | the sensor's state (`connecting`, `notifying`, `noContact`, `invalid`, `stale`, `lost`) |
/// | `workout/state` | 1 | yes | `collecting`, `paused`, `ended`, `finished` |
/// | `workout/summary` | 1 | yes | the finished workout, as `--json` prints it |
///
/// and Home Assistant's discovery configurations, retained, at
/// `homeassistant/sensor/BRIDGE-ID_THING/config`.
public struct MQTTTopics: Sendable {
    public let broker: MQTTBroker
    /// The zone whose offset the instants carry (`TimeText`: `record` and `serve`'s `TZ`).
    public var timeZone: TimeZone = .current
    /// A class's rider (`serve` with several athletes), whose topics are a level below the bridge's.
    public var athlete: AthleteName?

    public init(broker: MQTTBroker, timeZone: TimeZone = .current, athlete: AthleteName? = nil) {
        self.broker = broker
        self.timeZone = timeZone
        self.athlete = athlete
    }

    /// The topics' first levels: the bridge's, and the athlete's name as a level of its own (`/`,
    /// `+` and `#`, which a level cannot hold, made `_`).
    public var base: String {
        broker.base + (athlete.map { String($0.rawValue.map { "/+#".contains($0) ? "_" : $0 }) + "/" } ?? "")
    }

    /// What Home Assistant's ids hold of the bridge and the athlete: letters, digits, `_` and `-`
    /// (others made `_`).
    var discoveryID: String {
        guard let athlete else { return broker.bridgeID }
        let name = athlete.rawValue.lowercased().unicodeScalars.map { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-") ? Character(scalar) : "_"
        }
        return broker.bridgeID + "_" + String(name)
    }

    /// The live quantities: the type, the topic's last level, the unit, Home Assistant's name, device class and icon.
    public static let live: [(type: QuantityType, topic: String, unit: String, name: String, deviceClass: String?, icon: String)] = [
        (.heartRate, "heart_rate", "bpm", "Heart rate", nil, "mdi:heart-pulse"),
        (.cyclingPower, "power", "W", "Power", "power", "mdi:flash"),
        (.cyclingCadence, "cadence", "rpm", "Cadence", nil, "mdi:rotate-right"),
    ]

    /// The zoned quantities' topic levels.
    public static func zoneTopic(_ type: QuantityType) -> String { type == .heartRate ? "heart_rate" : "power" }

    public var availability: String { broker.base + "status" }

    /// A live value, rounded to a tenth (heart rate and power are whole numbers already).
    public func live(_ type: QuantityType, _ value: Double) -> MQTTMessage? {
        guard let entry = Self.live.first(where: { $0.type == type }) else { return nil }
        return MQTTMessage(topic: base + entry.topic, text: ((value * 10).rounded() / 10).formatted, qos: .atMostOnce)
    }

    /// DFA α1 of a new window (DESIGN.md §3 "DFA α1"), to hundredths.
    public func dfaAlpha1(_ alpha1: Double) -> MQTTMessage {
        MQTTMessage(topic: base + "dfa_alpha1", text: ((alpha1 * 100).rounded() / 100).formatted, qos: .atMostOnce)
    }

    /// A zone update whole: the zone left and entered with their durations, the running zone group.
    public func zoneUpdate(_ update: ZoneUpdate) -> MQTTMessage {
        MQTTMessage(
            topic: base + "zone/" + Self.zoneTopic(update.quantityType),
            text: WorkoutJSON.zoneUpdate(update, start: .zero).serialized, qos: .atLeastOnce)
    }

    /// A pause, resume, lap or activity change as the workout's `events` hold it; nil for the
    /// sensors' events (their states have topics of their own).
    public func event(_ event: WorkoutEvent) -> MQTTMessage? {
        switch event.kind {
        case .pause, .resume, .lap, .activity:
            MQTTMessage(topic: base + "event", text: WorkoutJSON.event(event, start: .zero).serialized, qos: .atLeastOnce)
        case .sensorLost, .sensorRegained, .sensorState:
            nil
        }
    }

    /// `{"type":"start","t":0,"start":"2026-11-02T17:30:00Z"}` (the start with its offset in `timeZone`).
    public func started(_ date: Date) -> MQTTMessage {
        let object: JSONObject = ["type": "start", "t": 0, "start": .string(TimeText.instant(date, in: timeZone))]
        return MQTTMessage(topic: base + "event", text: JSONValue.object(object).serialized, qos: .atLeastOnce)
    }

    /// `{"type":"end","t":3780}`: `t` is the latest time the workout had reached.
    public func ended(at time: Duration) -> MQTTMessage {
        let object: JSONObject = ["type": "end", "t": .number(time.seconds)]
        return MQTTMessage(topic: base + "event", text: JSONValue.object(object).serialized, qos: .atLeastOnce)
    }

    /// The plan's step under way, as `/api/live` gives it.
    public func step(_ step: DashboardState.Step) -> MQTTMessage {
        MQTTMessage(topic: base + "step", text: PlanText.json(step).serialized, qos: .atLeastOnce, retain: true)
    }

    /// The plan is done: no step is under way.
    public func planDone() -> MQTTMessage {
        MQTTMessage(topic: base + "step", text: #"{"number":null}"#, qos: .atLeastOnce, retain: true)
    }

    public func sensorState(_ key: String, _ state: SensorState) -> MQTTMessage {
        MQTTMessage(topic: base + "sensor/" + key, text: state.rawValue, qos: .atLeastOnce, retain: true)
    }

    public func workoutState(_ state: WorkoutBuilderState) -> MQTTMessage {
        MQTTMessage(topic: base + "workout/state", text: state.rawValue, qos: .atLeastOnce, retain: true)
    }

    /// The finished workout as `record --json` and `workouts show --json` print it.
    public func summary(_ workout: Workout, id: WorkoutID?, identity: WorkoutIdentity?) -> MQTTMessage {
        MQTTMessage(
            topic: base + "workout/summary",
            text: WorkoutJSON.object(workout, id: id, identity: identity, zoneUpdates: false, timeZone: timeZone).serialized,
            qos: .atLeastOnce, retain: true)
    }

    /// Home Assistant's MQTT discovery: heart rate, power, cadence, the current heart-rate and power
    /// zones (numbered from 1), DFA α1 and the workout's state, as sensors of one device,
    /// unavailable while the bridge is offline; a live value older than 10 s (α1: 30 s) shows as
    /// unavailable.
    public func discovery() -> [MQTTMessage] {
        let id = discoveryID
        let deviceName = "SensorBridge \(broker.bridgeID)" + (athlete.map { " \($0.rawValue)" } ?? "")
        let device: JSONValue = .object([
            "identifiers": .array([.string("sensorbridge_\(id)")]), "name": .string(deviceName),
            "manufacturer": "SensorBridge", "model": "sensorbridge",
        ])
        func config(_ thing: String, name: String, state: String, extra: JSONObject) -> MQTTMessage {
            var object: JSONObject = [
                "name": .string(name), "unique_id": .string("\(id)_\(thing)"), "object_id": .string("sensorbridge_\(id)_\(thing)"),
                "state_topic": .string(base + state), "availability_topic": .string(availability), "device": device,
            ]
            for (key, value) in extra.pairs { object.append(key, value) }
            return MQTTMessage(
                topic: "homeassistant/sensor/\(id)_\(thing)/config", text: JSONValue.object(object).serialized, qos: .atLeastOnce,
                retain: true)
        }
        var messages = Self.live.map { entry in
            var extra: JSONObject = [
                "unit_of_measurement": .string(entry.unit), "state_class": "measurement", "expire_after": 10,
                "icon": .string(entry.icon),
            ]
            if let deviceClass = entry.deviceClass { extra.append("device_class", .string(deviceClass)) }
            return config(entry.topic, name: entry.name, state: entry.topic, extra: extra)
        }
        for (type, name) in [(QuantityType.heartRate, "Heart rate zone"), (.cyclingPower, "Power zone")] {
            let topic = Self.zoneTopic(type)
            messages.append(
                config(
                    topic + "_zone", name: name, state: "zone/" + topic,
                    extra: [
                        "value_template": "{{ value_json.current + 1 if value_json.current is number else 'none' }}",
                        "icon": "mdi:gauge",
                    ]))
        }
        // A window every 5 s or so while RR intervals come; gone 30 s after the last, as on the dashboard.
        messages.append(
            config(
                "dfa_alpha1", name: "DFA α1", state: "dfa_alpha1",
                extra: ["state_class": "measurement", "expire_after": 30, "icon": "mdi:heart-flash"]))
        messages.append(config("workout_state", name: "Workout", state: "workout/state", extra: ["icon": "mdi:bike"]))
        return messages
    }
}

/// A broker to publish to, and this bridge's place on it.
public struct MQTTBroker: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var tls: Bool
    /// The topics' first levels (`sensorbridge`, `home/garage`).
    public var prefix: String
    public var username: String?
    public var password: String?
    public var bridgeID = "sensorbridge"

    public init(
        host: String, port: Int, tls: Bool, prefix: String, username: String? = nil, password: String? = nil,
        bridgeID: String = "sensorbridge"
    ) {
        (self.host, self.port, self.tls, self.prefix) = (host, port, tls, prefix)
        (self.username, self.password, self.bridgeID) = (username, password, bridgeID)
    }

    /// `PREFIX/BRIDGE-ID/`.
    public var base: String { "\(prefix)/\(bridgeID)/" }

    /// `mqtt://host:1883/PREFIX`, for messages (no credentials).
    public var url: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(tls ? "mqtts" : "mqtt")://\(shownHost):\(port)/\(prefix)"
    }
}
