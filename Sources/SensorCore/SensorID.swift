/// A small, copyable handle for one sensor within a session (index into the session's sensor table).
///
/// Samples carry this instead of an address string so that they stay `BitwiseCopyable`.
public struct SensorID: RawRepresentable, Sendable, BitwiseCopyable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }
    public var description: String { "sensor#\(rawValue)" }

    /// Session ids for device keys (`hr`, `power`, ...): 1, 2, ... in the keys' sorted order. Replay,
    /// record and serve all number their sensors this way, so a recording and a replay of its trace
    /// give the same ids.
    public static func numbering(_ keys: some Sequence<String>) -> [String: SensorID] {
        Dictionary(uniqueKeysWithValues: keys.sorted().enumerated().map { ($1, SensorID(UInt16($0 + 1))) })
    }
}
