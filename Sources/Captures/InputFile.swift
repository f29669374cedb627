public import Foundation
import Glibc

/// Opening a file to read, with the reason in plain words when it cannot be: the one place the
/// capture readers, `replay`, `decode --capture` and `convert` open their input.
public enum InputFile {
    /// What a file holds, from its first bytes.
    public enum Kind: Sendable, Equatable {
        /// Starts with the btsnoop magic.
        case btsnoop
        /// Starts with `{` (after blanks), its first line UTF-8: a JSONL trace, or nothing else.
        case trace
    }

    /// Opens `url` for reading. A folder is refused here: `open(2)` takes one and only the first
    /// read fails, with an error that names no file.
    /// The corresponding C functions are `open(2)` and `fstat(2)`.
    public static func open(_ url: URL) throws(InputFileError) -> FileHandle {
        // As it was typed: `replay Sources` says "cannot read Sources: ...".
        let path = url.relativePath
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw InputFileError(path: path, errno: errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let error = InputFileError(path: path, errno: errno)
            Glibc.close(descriptor)
            throw error
        }
        guard status.st_mode & S_IFMT != S_IFDIR else {
            Glibc.close(descriptor)
            throw InputFileError(path: path, errno: EISDIR)
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Opens `url` and tells a btsnoop capture from a JSONL trace by its first bytes; anything
    /// else (binary data, text that is not JSON) is refused as neither. An empty file is a trace
    /// (whose reader says it is empty).
    public static func kind(of url: URL) throws(InputFileError) -> Kind {
        let handle = try open(url)
        defer { try? handle.close() }
        let head: [UInt8]
        do {
            head = [UInt8](try handle.read(upToCount: 4096) ?? Data())
        } catch {
            throw InputFileError(path: url.relativePath, problem: "\(error.localizedDescription)")
        }
        return try kind(of: head, path: url.relativePath)
    }

    /// The kind of a file whose first (up to 4096) bytes are `head`.
    static func kind(of head: [UInt8], path: String) throws(InputFileError) -> Kind {
        if head.starts(with: BtsnoopReader.magic) { return .btsnoop }
        let blanks: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        guard let first = head.first(where: { !blanks.contains($0) }) else { return .trace }
        // The first line, or as much of it as was read (whose last character may be cut: up to 3
        // bytes less), must be UTF-8.
        let line = head.prefix(while: { $0 != 0x0A })
        let cut = line.count == head.count ? min(3, line.count) : 0
        let isText = (0...cut).contains { String(validating: line.dropLast($0), as: UTF8.self) != nil }
        guard first == UInt8(ascii: "{"), isText else { throw InputFileError(path: path, neither: ()) }
        return .trace
    }
}

/// Why an input file cannot be read, naming it: `cannot read ride.jsonl: there is no such file`.
public struct InputFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let description: String

    init(path: String, problem: String) {
        self.path = path
        description = "cannot read \(path): \(problem)"
    }

    init(path: String, neither: Void) {
        self.path = path
        description = "\(path) is neither a JSONL trace nor a btsnoop capture"
    }

    init(path: String, errno code: Int32) {
        let problem =
            switch code {
            case ENOENT: "there is no such file"
            case EISDIR: "it is a folder, not a file"
            case EACCES, EPERM: "permission denied (you may not read it)"
            case ENOTDIR: "a part of the path is a file, not a folder"
            case ELOOP: "too many symbolic links (a link that points to itself?)"
            case ENAMETOOLONG: "the name is too long"
            default: String(cString: strerror(code))
            }
        self.init(path: path, problem: problem)
    }
}
