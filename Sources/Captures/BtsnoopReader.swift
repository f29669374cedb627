public import Foundation
public import GATT

/// Reads a btsnoop capture (datalinks 2001 from `btmon -w`, 1002 from Android's HCI snoop log,
/// 1001) as a stream of `CaptureEvent`s: LE connections and disconnections, ATT notifications and
/// indications with the characteristic each handle was discovered as, and monitor log notes.
///
/// The file is read in 1 MiB chunks, so a long capture never sits in memory whole; the state kept
/// between records is bounded (see `HCICaptureParser`). Problems inside packets are skipped and
/// counted in `statistics`; a file that stops making sense throws `BtsnoopError` after every
/// record before the problem has been yielded.
///
/// Not thread-safe: one thread reads at a time.
public final class BtsnoopReader {
    public var datalink: BtsnoopDatalink { stream.records.datalink }
    public var statistics: CaptureStatistics { stream.parser.statistics }
    /// The time of the first record, once it has been read.
    public var firstRecordTime: BtsnoopTime? { stream.firstRecordTime }
    /// File offset of the latest record read: the record of the event `next()` returned last.
    var latestRecordOffset: Int { stream.records.recordOffset }

    /// All mutable state in one value. Unchecked: the reader is documented as used by one thread
    /// at a time, and nothing it calls reaches back into it, so the dynamic exclusivity check on
    /// each `next()` would only cost time.
    @exclusivity(unchecked) private var stream: Stream

    private struct Stream {
        var records: BtsnoopRecordReader
        var parser: HCICaptureParser
        var firstRecordTime: BtsnoopTime?

        @inline(__always)
        mutating func next() throws(BtsnoopError) -> CaptureEvent? {
            while true {
                if let event = parser.nextEvent() { return event }
                guard let record = try records.next() else { return nil }
                if firstRecordTime == nil { firstRecordTime = record.time }
                parser.consume(record, records.chunks.buffer)
            }
        }
    }

    /// `btsnoop\0`, the first 8 bytes of every btsnoop file.
    public static var magic: [UInt8] { BtsnoopRecordReader.magic }

    /// Opens a capture file and checks its header.
    /// - Parameter assumedHandles: characteristics of attribute handles that no discovery in the
    ///   capture names (a capture that began after discovery), for every connection.
    public convenience init(contentsOf url: URL, assumedHandles: [UInt16: BluetoothUUID] = [:]) throws(BtsnoopError) {
        let handle: FileHandle
        do {
            handle = try InputFile.open(url)
        } catch {
            throw BtsnoopError(.unreadable, record: 0, offset: 0, error.description)
        }
        try self.init(ByteChunks(handle: handle), assumedHandles: assumedHandles)
    }

    /// A reader over a capture in memory.
    public convenience init(bytes: [UInt8], assumedHandles: [UInt16: BluetoothUUID] = [:]) throws(BtsnoopError) {
        try self.init(ByteChunks(bytes: bytes), assumedHandles: assumedHandles)
    }

    private init(_ chunks: ByteChunks, assumedHandles: [UInt16: BluetoothUUID]) throws(BtsnoopError) {
        let records = try BtsnoopRecordReader(chunks)
        stream = Stream(
            records: records, parser: HCICaptureParser(datalink: records.datalink, assumedHandles: assumedHandles))
    }

    /// The next event, or nil after the last record.
    public func next() throws(BtsnoopError) -> CaptureEvent? { try stream.next() }

    /// The peer's GATT server on `connection` as discovered so far (kept across reconnections to
    /// the same address).
    public func remoteDatabase(of connection: CaptureConnection) -> GATTDatabase? {
        stream.parser.database(for: connection)
    }

    /// Whether the file at `url` starts with the btsnoop magic.
    public static func isBtsnoop(_ url: URL) -> Bool {
        guard let handle = try? InputFile.open(url) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: magic.count)).map { [UInt8]($0) == magic } ?? false
    }
}
