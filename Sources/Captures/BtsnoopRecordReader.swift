/// Reads the framing of a btsnoop file: the file header, then one record at a time, without
/// copying record data. Every length is checked before anything is read or allocated.
struct BtsnoopRecordReader {
    /// A record in `buffer`: its header fields and where its included bytes are.
    struct View {
        var number: Int
        var originalLength: UInt32
        var flags: UInt32
        var time: BtsnoopTime
        var data: Range<Int>
    }

    let datalink: BtsnoopDatalink
    /// The latest view's range points into `chunks.buffer` (a stored path, so that callers borrow
    /// the bytes rather than copy the array reference).
    private(set) var chunks: ByteChunks
    private var recordNumber = 0
    /// File offset of the latest record's header.
    private(set) var recordOffset = 0

    /// `btsnoop\0`, the first 8 bytes of every btsnoop file.
    static let magic: [UInt8] = Array("btsnoop\0".utf8)
    static let fileHeaderSize = 16

    /// Reads and checks the 16-byte file header: magic, version 1, a datalink this reader parses.
    init(_ chunks: ByteChunks) throws(BtsnoopError) {
        self.chunks = chunks
        guard try self.chunks.require(Self.fileHeaderSize) else {
            let available = self.chunks.available
            throw BtsnoopError(
                .truncatedHeader, record: 0, offset: 0,
                available == 0
                    ? "the file is empty; a btsnoop file starts with a 16-byte header"
                    : "the file is \(available) bytes long, shorter than the 16-byte btsnoop header")
        }
        let b = self.chunks.buffer
        let s = self.chunks.start
        guard Array(b[s..<s + 8]) == Self.magic else {
            throw BtsnoopError(
                .badMagic, record: 0, offset: 0,
                "not a btsnoop file: it does not start with 'btsnoop\\0' (give a file from 'btmon -w', Android's btsnoop_hci.log or a JSONL trace)"
            )
        }
        let version = Self.uint32(b, s + 8)
        guard version == 1 else {
            throw BtsnoopError(
                .unsupportedVersion, record: 0, offset: 8, "btsnoop version \(version); this reader reads version 1")
        }
        let datalinkValue = Self.uint32(b, s + 12)
        guard let datalink = BtsnoopDatalink(rawValue: datalinkValue) else {
            throw BtsnoopError(
                .unknownDatalink, record: 0, offset: 12,
                "btsnoop datalink \(datalinkValue) is not one this reader parses (1001 HCI, 1002 HCI UART/H4, 2001 Linux monitor)"
            )
        }
        self.datalink = datalink
        self.chunks.consume(Self.fileHeaderSize)
    }

    /// The next record, or nil at the end of the file. A file that ends inside a record, a record
    /// longer than any HCI packet, or one that includes more than its original length is an error.
    mutating func next() throws(BtsnoopError) -> View? {
        let headerSize = BtsnoopRecord.headerSize
        guard try chunks.require(headerSize) else {
            guard chunks.available == 0 else {
                throw BtsnoopError(
                    .truncatedRecord, record: recordNumber + 1, offset: chunks.offset,
                    "the file ends \(chunks.available) bytes into this record's 24-byte header: the capture was cut short (the \(recordNumber) records before it were read)"
                )
            }
            return nil
        }
        recordNumber += 1
        let s = chunks.start
        let originalLength = Self.uint32(chunks.buffer, s)
        let includedLength = Self.uint32(chunks.buffer, s + 4)
        guard includedLength <= BtsnoopRecord.maximumLength else {
            throw BtsnoopError(
                .recordTooLong, record: recordNumber, offset: chunks.offset,
                "a record of \(includedLength) bytes, longer than any HCI packet (\(BtsnoopRecord.maximumLength)); the file is corrupt from here"
            )
        }
        guard includedLength <= originalLength else {
            throw BtsnoopError(
                .badRecordLength, record: recordNumber, offset: chunks.offset,
                "the record includes \(includedLength) bytes of a \(originalLength)-byte packet; the file is corrupt from here"
            )
        }
        let flags = Self.uint32(chunks.buffer, s + 8)
        let time = BtsnoopTime(
            microseconds: Int64(
                bitPattern: UInt64(Self.uint32(chunks.buffer, s + 16)) << 32
                    | UInt64(Self.uint32(chunks.buffer, s + 20))))
        let total = headerSize + Int(includedLength)
        guard try chunks.require(total) else {
            throw BtsnoopError(
                .truncatedRecord, record: recordNumber, offset: chunks.offset,
                "the file ends inside this record (\(chunks.available - headerSize) of \(includedLength) bytes): the capture was cut short (the \(recordNumber - 1) records before it were read)"
            )
        }
        let dataStart = chunks.start + headerSize
        recordOffset = chunks.offset
        chunks.consume(total)
        return View(
            number: recordNumber, originalLength: originalLength, flags: flags, time: time,
            data: dataStart..<dataStart + Int(includedLength))
    }

    @inline(__always)
    static func uint32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
}
