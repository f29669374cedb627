public import Foundation
public import GATT

/// A stream of trace records with their header: what `replay` consumes. A JSONL trace
/// (`TraceReader`) and a btsnoop capture (`BtsnoopTraceReader`) are both one.
public protocol TraceRecordSource: AnyObject {
    associatedtype Failure: Error
    var header: TraceHeader { get }
    /// The next record in time order, or nil at the end.
    func next() throws(Failure) -> TraceRecord?
}

extension TraceReader: TraceRecordSource {}

/// Opening capture files of either kind.
public enum CaptureFile {
    /// Opens a btsnoop capture (recognised by its magic, `btsnoop\0`) or a JSONL trace (a first
    /// line that is a JSON object), as trace records.
    /// - Parameter assumedHandles: for btsnoop, characteristics of handles no discovery names.
    /// - Throws: `.file` for a file that cannot be read or is neither kind, naming it.
    public static func openTrace(_ url: URL, assumedHandles: [UInt16: BluetoothUUID] = [:]) throws(CaptureError)
        -> any TraceRecordSource
    {
        if try kind(of: url) == .btsnoop {
            do {
                return try BtsnoopTraceReader(contentsOf: url, assumedHandles: assumedHandles)
            } catch {
                throw .btsnoop(error)
            }
        }
        do {
            return try TraceReader(contentsOf: url)
        } catch {
            throw .trace(error)
        }
    }
}

extension CaptureFile {
    /// What `url` holds (`InputFile.kind(of:)`), or `.file` naming it and the problem.
    public static func kind(of url: URL) throws(CaptureError) -> InputFile.Kind {
        do {
            return try InputFile.kind(of: url)
        } catch {
            throw .file(error)
        }
    }
}

/// Why a capture file could not be read, converted or written.
public enum CaptureError: Error, Sendable, Equatable, CustomStringConvertible {
    case trace(TraceError)
    case btsnoop(BtsnoopError)
    /// The file cannot be opened, or is neither a trace nor a capture; the message names it.
    case file(InputFileError)
    /// The trace holds something a btsnoop capture cannot carry.
    case notRepresentable(String)
    case unwritable(String)

    public var description: String {
        switch self {
        case .trace(let error): error.description
        case .btsnoop(let error): error.description
        case .file(let error): error.description
        case .notRepresentable(let message), .unwritable(let message): message
        }
    }
}
