import SensorCore

/// Why a trace could not be read: the line and what is wrong with it.
public struct TraceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based line number; 0 when the problem is the file itself.
    public let line: Int
    public let message: String

    /// `message` may quote the file (an event's name): it is kept inert (`String.inert`), as the
    /// file may come from anyone.
    public init(line: Int, _ message: String) {
        self.line = line
        self.message = message.inertLines
    }

    public var description: String { line > 0 ? "line \(line): \(message)" : message }
}
