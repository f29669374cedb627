public import Foundation

/// A btsnoop file written record by record, as `capture` does: buffered, and on disk after
/// `flush()` (call it at least every second so that an interrupted capture loses little). An
/// `OutputFile` in `.stream` mode: a new file is written in place; an existing one is replaced
/// when the writer closes.
public final class BtsnoopFileWriter {
    private var writer: BtsnoopWriter
    private let file: OutputFile

    /// Creates the file (or its temporary beside an existing one) and writes its header.
    public init(_ url: URL, datalink: BtsnoopDatalink = .linuxMonitor) throws(CaptureError) {
        file = try OutputFile.forCapture(url, mode: .stream)
        writer = BtsnoopWriter(datalink: datalink)
    }

    public func append(_ record: BtsnoopRecord) throws(CaptureError) {
        writer.append(record)
        if writer.bytes.count >= 1 << 16 { try flush() }
    }

    public func flush() throws(CaptureError) { try file.writeCapture(writer.takeBytes()) }

    /// Flushes and finishes the file (syncs it, and replaces the existing file it was written beside).
    public func close() throws(CaptureError) {
        try flush()
        try file.commitCapture()
    }

    deinit { try? flush() }
}
