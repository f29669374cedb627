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
    public var datalink: BtsnoopDatalink { records.datalink }
    public var statistics: CaptureStatistics { parser.statistics }
    /// The time of the first record, once it has been read.
    public private(set) var firstRecordTime: BtsnoopTime?

    private var records: BtsnoopRecordReader
    private var parser: HCICaptureParser
    private var queue: [CaptureEvent] = []
    private var queueHead = 0

    /// `btsnoop\0`, the first 8 bytes of every btsnoop file.
    public static var magic: [UInt8] { BtsnoopRecordReader.magic }

    /// Opens a capture file and checks its header.
    /// - Parameter assumedHandles: characteristics of attribute handles that no discovery in the
    ///   capture names (a capture that began after discovery), for every connection.
    public convenience init(contentsOf url: URL, assumedHandles: [UInt16: BluetoothUUID] = [:]) throws(BtsnoopError) {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw BtsnoopError(.unreadable, record: 0, offset: 0, "cannot read \(url.path): \(error.localizedDescription)")
        }
        try self.init(ByteChunks(handle: handle), assumedHandles: assumedHandles)
    }

    /// A reader over a capture in memory.
    public convenience init(bytes: [UInt8], assumedHandles: [UInt16: BluetoothUUID] = [:]) throws(BtsnoopError) {
        try self.init(ByteChunks(bytes: bytes), assumedHandles: assumedHandles)
    }

    private init(_ chunks: ByteChunks, assumedHandles: [UInt16: BluetoothUUID]) throws(BtsnoopError) {
        records = try BtsnoopRecordReader(chunks)
        parser = HCICaptureParser(datalink: records.datalink, assumedHandles: assumedHandles)
    }

    /// The next event, or nil after the last record.
    public func next() throws(BtsnoopError) -> CaptureEvent? {
        while queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
            guard let record = try records.next() else { return nil }
            if firstRecordTime == nil { firstRecordTime = record.time }
            parser.consume(record, records.buffer, into: &queue)
        }
        defer { queueHead += 1 }
        return queue[queueHead]
    }

    /// The peer's GATT server on `connection` as discovered so far (kept across reconnections to
    /// the same address).
    public func remoteDatabase(of connection: CaptureConnection) -> GATTDatabase? {
        parser.database(for: connection)
    }

    /// Whether the file at `url` starts with the btsnoop magic.
    public static func isBtsnoop(_ url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: magic.count)).map { [UInt8]($0) == magic } ?? false
    }
}
