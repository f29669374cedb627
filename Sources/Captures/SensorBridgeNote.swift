import SensorCore

/// What `convert` writes into a btsnoop capture as monitor log notes (user logging, ident
/// `sensorbridge`; `btmon` shows them as `= sensorbridge: ...`) to carry what HCI cannot: the
/// trace header, which link is which device, and the trace's events. Each message is one JSON
/// object in the trace's own vocabulary.
enum SensorBridgeNote: Equatable {
    /// The trace header line, written first: `{"sensorbridge":"trace","version":1,"start":...}`.
    case header(TraceHeader)
    /// The device key of the link to `address`: `{"device":"hr","address":"C4:7E:11:22:33:44"}`.
    case device(key: String, address: BluetoothAddress)
    /// A trace event, as its trace line without `t` (the record's time is the event's time):
    /// `{"event":"lap"}`, `{"event":"disconnected","device":"power"}`.
    case event(TraceEvent)

    static let ident = "sensorbridge"

    var message: String {
        switch self {
        case .header(let header):
            return TraceWriter.headerLine(header)
        case .device(let key, let address):
            return JSONValue.object(["device": .string(key), "address": .string(address.description)]).serialized
        case .event(let event):
            var object = JSONObject()
            TraceWriter.appendFields(of: event, to: &object)
            return JSONValue.object(object).serialized
        }
    }

    /// Parses a note's message; nil when it is none of the three.
    init?(message: String) {
        guard let object = (try? JSONValue(parsing: message))?.objectValue else { return nil }
        if object["sensorbridge"] != nil {
            guard let header = try? TraceReader.parseHeader(object, line: 0) else { return nil }
            self = .header(header)
        } else if let name = object["event"]?.stringValue {
            guard let event = try? TraceReader.parseEvent(name, object, line: 0) else { return nil }
            self = .event(event)
        } else if let key = object["device"]?.stringValue, let text = object["address"]?.stringValue,
            let address = BluetoothAddress(text)
        {
            self = .device(key: key, address: address)
        } else {
            return nil
        }
    }
}
