public import Foundation

/// The name of the box that recorded a workout: the host name unless `--bridge-id` says otherwise.
/// Workouts carry it, so that the workouts of several bridges can share one store and a bridge
/// recovers only its own interrupted recordings.
///
/// 1 to 64 characters: ASCII letters, digits, `-`, `_` and `.`, so that it reads the same in a
/// table, a file name and a URL.
public struct BridgeID: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// `text` when it is a valid bridge id, else nil.
    public init?(rawValue text: String) {
        guard (1 ... 64).contains(text.utf8.count), text.utf8.allSatisfy(Self.allowed) else { return nil }
        rawValue = text
    }

    /// `text` as a bridge id, or a message that says what one may hold.
    public static func parse(_ text: String) -> Result<BridgeID, BridgeIDError> {
        BridgeID(rawValue: text).map { .success($0) } ?? .failure(BridgeIDError(text: text))
    }

    /// This box's default: its host name (up to the first dot), with any character a bridge id may
    /// not hold replaced by `-`; `sensorbridge` when the system has no name.
    public static var hostDefault: BridgeID {
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count - 1) == 0
            ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        return fromHostName(host)
    }

    /// What `hostDefault` makes of `host`.
    static func fromHostName(_ host: String) -> BridgeID {
        let label = host.split(separator: ".", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let cleaned = String(decoding: label.utf8.prefix(64).map { allowed($0) ? $0 : UInt8(ascii: "-") }, as: UTF8.self)
        return BridgeID(rawValue: cleaned) ?? BridgeID(rawValue: "sensorbridge")!
    }

    private static func allowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "0") ... UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    public var description: String { rawValue }

    public static func < (lhs: BridgeID, rhs: BridgeID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A bridge id that is not one.
public struct BridgeIDError: Error, Sendable, Hashable, CustomStringConvertible {
    public let text: String

    public var description: String {
        "'\(text)' is not a bridge id: give 1 to 64 letters, digits, '-', '_' or '.' (the default is this box's host name)"
    }
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
