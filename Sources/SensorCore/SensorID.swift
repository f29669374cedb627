/// A small, copyable handle for one sensor within a session (index into the session's sensor table).
///
/// Samples carry this instead of an address string so that they stay `BitwiseCopyable`.
public struct SensorID: RawRepresentable, Sendable, BitwiseCopyable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }
    public var description: String { "sensor#\(rawValue)" }
}
