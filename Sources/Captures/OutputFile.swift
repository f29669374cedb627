public import Foundation

/// A file created (or truncated) for writing, written in large blocks; closed when released.
final class OutputFile {
    private let handle: FileHandle
    let path: String

    init(_ url: URL) throws(CaptureError) {
        path = url.path
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw .unwritable("cannot create \(path): check that its folder exists and is writable")
        }
        self.handle = handle
    }

    func write(_ bytes: [UInt8]) throws(CaptureError) {
        guard !bytes.isEmpty else { return }
        do {
            try handle.write(contentsOf: bytes)
        } catch {
            throw .unwritable("cannot write \(path): \(error.localizedDescription)")
        }
    }

    deinit { try? handle.close() }
}

/// A btsnoop file written record by record, as `capture` does: buffered, and on disk after
/// `flush()` (call it at least every second so that an interrupted capture loses little).
public final class BtsnoopFileWriter {
    private var writer: BtsnoopWriter
    private let file: OutputFile

    /// Creates (or replaces) the file and writes its header.
    public init(_ url: URL, datalink: BtsnoopDatalink = .linuxMonitor) throws(CaptureError) {
        file = try OutputFile(url)
        writer = BtsnoopWriter(datalink: datalink)
    }

    public func append(_ record: BtsnoopRecord) throws(CaptureError) {
        writer.append(record)
        if writer.bytes.count >= 1 << 16 { try flush() }
    }

    public func flush() throws(CaptureError) { try file.write(writer.takeBytes()) }

    deinit { try? flush() }
}
