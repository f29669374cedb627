/// How hard the broker and the client try to deliver a message (MQTT 3.1.1 §4.3).
public enum MQTTQoS: Int32, Sendable, Hashable {
    /// At most once: sent once, lost if the connection is down (live values, which the next one replaces).
    case atMostOnce = 0
    /// At least once: kept until the broker acknowledges it (PUBACK), sent again after a reconnection.
    case atLeastOnce = 1
}

/// One message to publish: a topic, its payload (UTF-8 text here), how it is delivered, and
/// whether the broker keeps it as the topic's last value for subscribers that come later.
public struct MQTTMessage: Sendable, Hashable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: MQTTQoS
    /// The broker keeps the latest retained message of each topic and gives it to every new subscriber.
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    public init(topic: String, text: String, qos: MQTTQoS, retain: Bool = false) {
        self.init(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain)
    }

    /// The payload as text.
    public var text: String { String(decoding: payload, as: UTF8.self) }
}
