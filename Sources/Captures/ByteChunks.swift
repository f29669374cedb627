import Foundation

/// The bytes of a file read in large chunks, or of an array in memory, consumed front to back.
/// Bytes at `start` stay valid in `buffer` until the next `require` call; at most one chunk plus
/// the longest record is held.
struct ByteChunks {
    private let handle: FileHandle?
    private(set) var buffer: [UInt8]
    /// Index in `buffer` of the first byte not consumed.
    private(set) var start = 0
    /// File offset of `buffer[0]`.
    private var bufferOffset = 0
    private var exhausted: Bool
    /// How much a read asks the file for (at least).
    private let chunkSize: Int

    init(handle: FileHandle, chunkSize: Int = 1 << 20) {
        self.handle = handle
        self.chunkSize = chunkSize
        buffer = []
        exhausted = false
    }

    init(bytes: [UInt8]) {
        handle = nil
        buffer = bytes
        exhausted = true
        chunkSize = 0
    }

    /// File offset of the first byte not consumed.
    var offset: Int { bufferOffset + start }

    /// Bytes available from `start` without reading.
    var available: Int { buffer.count - start }

    /// Makes `count` bytes available from `start`, reading more when needed; false when the input
    /// ends first (then `available` says how many there are).
    @inline(__always)
    mutating func require(_ count: Int) throws(BtsnoopError) -> Bool {
        if buffer.count - start >= count { return true }
        return try refill(count)
    }

    private mutating func refill(_ count: Int) throws(BtsnoopError) -> Bool {
        while available < count {
            guard !exhausted, let handle else { return false }
            if start > 0 {
                buffer.removeSubrange(0..<start)
                bufferOffset += start
                start = 0
            }
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: max(chunkSize, count - available))
            } catch {
                throw BtsnoopError(
                    .unreadable, record: 0, offset: offset, "cannot read the file: \(error.localizedDescription)")
            }
            if let chunk, !chunk.isEmpty { buffer.append(contentsOf: chunk) } else { exhausted = true }
        }
        return true
    }

    mutating func consume(_ count: Int) { start += count }
}
