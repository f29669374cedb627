import BlueZ
import Foundation
import SensorTestSupport
import Synchronization

/// The sensors the BlueZ tests play on the mock org.bluez, and what a listener or `SensorLinks`
/// told them.
enum MockSensors {
    static let strap = "/org/bluez/hci0/dev_C4_7E_11_22_33_44"
    static let meter = "/org/bluez/hci0/dev_E8_FE_6E_91_9F_16"
    static let header =
        #"{"sensorbridge":"trace","version":1,"start":"2026-11-02T17:30:00Z","devices":{"hr":{"name":"HRM-Pro","address":"C4:7E:11:22:33:44"},"power":{"name":"Assioma","address":"E8:FE:6E:91:9F:16"}}}"#

    /// A trace of `seconds` seconds, a strap (2A37) and a power meter (2A63) sending 4 values a second
    /// each, every value different; `extra` lines go after the value lines of the second `at`.
    static func trace(seconds: Int, extra: [String] = [], at: Int = 0) throws -> URL {
        var lines = [header]
        for index in 0..<(seconds * 4) {
            let t = Double(index) / 4
            lines.append(#"{"t":\#(t),"device":"hr","uuid":"2a37","hex":"\#(heartRate(index))"}"#)
            lines.append(#"{"t":\#(t),"device":"power","uuid":"2a63","hex":"\#(power(index))"}"#)
            if index == at * 4 + 3 { lines += extra }
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bluez-\(UUID().uuidString).jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// The `index`th heart-rate measurement: flags 0x06 (contact), 100 to 149 bpm.
    static func heartRate(_ index: Int) -> String { "06" + hex([UInt8(100 + index % 50)]) }

    /// The `index`th cycling power measurement: no flags, 150 W upwards (little-endian).
    static func power(_ index: Int) -> String { "0000" + hex([UInt8((150 + index) & 0xFF), UInt8((150 + index) >> 8)]) }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// The sensors as `SensorLinks` is asked for them: found in the client's mirror by name.
    static func requests(_ client: BlueZClient) throws -> [SensorRequest] {
        let adapter = try client.adapter()
        return [
            SensorRequest(key: "hr", device: try client.sensor("HRM-Pro", adapter: adapter)),
            SensorRequest(key: "power", device: try client.sensor("Assioma", adapter: adapter)),
        ]
    }
}

/// What `SensorLinks` (or a `BlueZClient` listener) told a test, in order.
final class Told: Sendable {
    private let notifications = Mutex<[BlueZNotification]>([])
    private let events = Mutex<[String]>([])
    private let changes = Mutex<[BlueZChange]>([])

    func notification(_ notification: BlueZNotification) { notifications.withLock { $0.append(notification) } }

    /// A link event, as a line: `connected hr`, `lost power`, `value hr 2a38 01`, `failed hr: ...`.
    func event(_ event: SensorLinkEvent) {
        let line: String
        switch event {
        case .connected(let key, _): line = "connected \(key)"
        case .lost(let key, _): line = "lost \(key)"
        case .attemptFailed(let key, let error, _): line = "failed \(key): \(error)"
        case .value(let key, let uuid, let bytes): line = "value \(key) \(BlueZUUID.number(uuid).lowercased()) \(MockSensors.hex(bytes))"
        case .stale(let key, let uuid, _): line = "stale \(key) \(BlueZUUID.number(uuid).lowercased())"
        case .notifying(let key, let uuid): line = "notifying \(key) \(BlueZUUID.number(uuid).lowercased())"
        case .socketClosed(let key, let uuid): line = "socket closed \(key) \(BlueZUUID.number(uuid).lowercased())"
        }
        events.withLock { $0.append(line) }
    }

    func change(_ change: BlueZChange) { changes.withLock { $0.append(change) } }

    var received: [BlueZNotification] { notifications.withLock { $0 } }
    var eventLines: [String] { events.withLock { $0 } }
    var changesHeard: [BlueZChange] { changes.withLock { $0 } }

    /// The values received from `key`, as hex, in order.
    func values(_ key: String) -> [String] { received.filter { $0.key == key }.map { MockSensors.hex($0.bytes) } }
}

/// Waits up to `timeout` until `condition` holds; whether it did.
func eventually(timeout: Duration = .seconds(10), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return true
}
