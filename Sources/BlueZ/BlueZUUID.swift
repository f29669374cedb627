/// The GATT UUIDs the bridge uses, in BlueZ's 128-bit lowercase form.
public enum BlueZUUID {
    /// `0000XXXX-0000-1000-8000-00805f9b34fb` for a 16-bit assigned number.
    public static func full(_ short: UInt16) -> String {
        let hex = String(short, radix: 16)
        return "0000" + String(repeating: "0", count: 4 - hex.count) + hex + "-0000-1000-8000-00805f9b34fb"
    }

    /// The 16-bit assigned number of a full UUID on the Bluetooth base, else nil.
    public static func short(_ full: String) -> UInt16? {
        let lower = full.lowercased()
        guard lower.count == 36, lower.hasPrefix("0000"), lower.hasSuffix("-0000-1000-8000-00805f9b34fb") else { return nil }
        return UInt16(lower.dropFirst(4).prefix(4), radix: 16)
    }

    /// Heart Rate (180D), Cycling Power (1818), Cycling Speed and Cadence (1816).
    public static let sensorServices: [UInt16] = [0x180D, 0x1818, 0x1816]
    /// Heart Rate Measurement, Cycling Power Measurement, CSC Measurement: subscribed to.
    public static let measurements: Set<UInt16> = [0x2A37, 0x2A63, 0x2A5B]
    /// A 16-bit assigned number as the specification writes it: `2A37`, `180D`.
    public static func number(_ uuid: UInt16) -> String {
        let hex = String(uuid, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - hex.count) + hex
    }

    /// The characteristic's name and number for messages: "Heart Rate Measurement (2A37)".
    public static func name(_ uuid: UInt16) -> String {
        let names: [UInt16: String] = [
            0x2A37: "Heart Rate Measurement", 0x2A63: "Cycling Power Measurement", 0x2A5B: "CSC Measurement",
        ]
        return names[uuid].map { "\($0) (\(number(uuid)))" } ?? "characteristic \(number(uuid))"
    }

    /// Battery Level, Body Sensor Location, Sensor Location, Cycling Power Feature: read once.
    public static let readOnce: Set<UInt16> = [0x2A19, 0x2A38, 0x2A5D, 0x2A65]
}
