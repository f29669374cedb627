public import Foundation

/// The name of a bridge (a box running SensorBridge): the host name unless `--bridge-id` says
/// otherwise. Workouts carry it, so that the workouts of several bridges can share one store, and
/// it is the bridge's topic level in MQTT and part of Home Assistant's ids.
///
/// 1 to 64 ASCII letters, digits, `_` and `-`: a topic level, an id, a file name and a table cell
/// alike.
public struct BridgeID: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// `text` when it is a valid bridge id, else nil.
    public init?(rawValue text: String) {
        guard (1 ... 64).contains(text.utf8.count), text.utf8.allSatisfy(Self.allowed) else { return nil }
        rawValue = text
    }

    /// This box's default: its host name with every character but ASCII letters, digits, `_`
    /// and `-` made `_`, cut to 64; `sensorbridge` when the system has no name.
    public static var hostDefault: BridgeID {
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count - 1) == 0
            ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        return fromHostName(host)
    }

    /// What `hostDefault` makes of `host`.
    static func fromHostName(_ host: String) -> BridgeID {
        let cleaned = String(host.unicodeScalars.prefix(64).map { $0.isASCII && allowed(UInt8($0.value)) ? Character($0) : "_" })
        return BridgeID(rawValue: cleaned) ?? BridgeID(rawValue: "sensorbridge")!
    }

    private static func allowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "0") ... UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    public var description: String { rawValue }

    public static func < (lhs: BridgeID, rhs: BridgeID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Who a stored workout is beyond its row id: a UUID no other workout has, on any bridge, the
/// bridge that recorded it, and the athlete it was recorded for (nil: the box's own profile).
public struct WorkoutIdentity: Sendable, Hashable {
    public let uuid: UUID
    public let bridge: BridgeID
    public let athlete: AthleteName?

    public init(uuid: UUID = UUID(), bridge: BridgeID, athlete: AthleteName? = nil) {
        self.uuid = uuid
        self.bridge = bridge
        self.athlete = athlete
    }

    /// The UUID as stored and printed: 36 lowercase characters.
    public var uuidText: String { uuid.uuidString.lowercased() }
}
