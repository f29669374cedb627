/// Why a btsnoop file cannot be read (further): what is wrong, where, and what to do.
///
/// Problems inside one packet (a fragment without its start, a malformed ATT PDU, a handle no
/// discovery named) are not errors: the reader skips and counts them in `CaptureStatistics`.
/// An error is thrown where the file itself stops making sense; every record before it has
/// been read.
public struct BtsnoopError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The file cannot be opened or read.
        case unreadable
        /// Fewer than the 16 bytes of the file header.
        case truncatedHeader
        /// The first 8 bytes are not `btsnoop\0`.
        case badMagic
        /// A format version other than 1.
        case unsupportedVersion
        /// A datalink this reader does not parse (it reads 1001, 1002 and 2001).
        case unknownDatalink
        /// The file ends inside a record header or its data (a capture cut short).
        case truncatedRecord
        /// A record longer than any HCI packet can be: the file is corrupt from here.
        case recordTooLong
        /// A record whose included length exceeds its original length.
        case badRecordLength
        /// A notification or event stamped more than `Duration.maximumWorkoutSpan` (7 days) after
        /// the trace's start: a clock jump or a damaged timestamp, not one workout. Only reading a
        /// capture as a trace (`BtsnoopTraceReader`: `replay`, `convert`) refuses it.
        case implausibleTime
    }

    public let kind: Kind
    /// 1-based record number (Wireshark's frame number); 0 for the file header.
    public let record: Int
    /// Byte offset in the file where the problem is.
    public let offset: Int
    public let message: String

    public init(_ kind: Kind, record: Int, offset: Int, _ message: String) {
        self.kind = kind
        self.record = record
        self.offset = offset
        self.message = message
    }

    public var description: String {
        record > 0 ? "record \(record) (byte \(offset)): \(message)" : message
    }
}
