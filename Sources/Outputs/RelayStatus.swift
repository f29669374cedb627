public import BlueZ
public import SensorCore

/// The relay as the live screens show it (the dashboard's line, the web page's), from its events.
public struct RelayStatus: Sendable, Equatable {
    public let name: String
    public var registered = false
    public var advertising = false
    /// The addresses of the apps' devices connected, in order.
    public var centrals: [String] = []
    /// Subscriptions by characteristic (2A37, 2A63).
    public var subscribers: [UInt16: Int] = [:]
    /// Why the sensors are not offered (the last failure), until they are again.
    public var problem: String?
    /// Values BlueZ did not take, as last said.
    public var notRelayed = 0

    public init(name: String) { self.name = name }

    public mutating func apply(_ event: GattRelayEvent) {
        switch event {
        case .registered:
            (registered, problem) = (true, nil)
        case .bluezGone, .adapterGone:
            (registered, advertising, centrals, subscribers) = (false, false, [], [:])
        case .advertising:
            advertising = true
        case .subscribers(let uuid, let count):
            subscribers[uuid] = count
        case .central(let address, let connected):
            centrals.removeAll { $0 == address }
            if connected { centrals = (centrals + [address]).sorted() }
        case .failed(let error, _):
            problem = "\(error)"
        case .notRelayed(let count):
            notRelayed = count
        }
    }

    /// One line: `Relay 'Bike 2': advertising; 2 apps connected (C0:…, C0:…); subscribed: heart rate 2, power 2`.
    public var summary: String {
        let state =
            if let problem { problem } else if !registered { "waiting for BlueZ" } else if advertising { "advertising" } else {
                "registered; advertising once the first value comes"
            }
        var parts = ["Relay '\(name)': \(state)"]
        if !centrals.isEmpty {
            parts.append("\(centrals.count) app\(centrals.count == 1 ? "" : "s") connected (\(centrals.joined(separator: ", ")))")
        }
        let subscribed = [(UInt16(0x2A37), "heart rate"), (0x2A63, "power")].compactMap { uuid, label in
            subscribers[uuid].map { "\(label) \($0)" }
        }
        if !subscribed.isEmpty { parts.append("subscribed: " + subscribed.joined(separator: ", ")) }
        if notRelayed > 0 { parts.append("values not relayed (BlueZ behind)") }
        return parts.joined(separator: "; ")
    }

    public var json: JSONValue {
        .object([
            "name": .string(name), "registered": .bool(registered), "advertising": .bool(advertising),
            "centrals": .array(centrals.map(JSONValue.string)),
            "subscribers": .object([
                "heartRate": .number(Double(subscribers[0x2A37] ?? 0)), "power": .number(Double(subscribers[0x2A63] ?? 0)),
            ]),
            "problem": problem.map(JSONValue.string) ?? .null, "notRelayed": .number(Double(notRelayed)),
            "summary": .string(summary),
        ])
    }
}
