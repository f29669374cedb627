public import Foundation
import Glibc
import Synchronization

/// A file a command writes, written so that a file already at its path is never destroyed by a
/// run that does not finish: it is replaced, whole, by a rename.
///
/// - `.replace` (`convert`, `export`): everything goes to a temporary file beside the destination
///   (`.NAME.sensorbridge-XXXXXXXX`, same folder and so same file system), which `commit()` syncs
///   to disk and renames over the destination. Released without `commit()` (an error, a throw),
///   the temporary is removed; so it is on SIGINT, SIGTERM and SIGHUP while `OutputFileSignals`
///   is installed. Only SIGKILL or a crash leaves it behind (the destination untouched).
/// - `.stream` (`capture`, `record --trace`): a recording that a crash must not lose. A path with
///   no file yet is created and written in place, so everything written is on disk however the
///   process ends. An existing file is not truncated: the recording goes to a temporary beside it,
///   renamed over it by `commit()`, or when released without (the recording is what the command
///   was asked for, also when it stopped on an error). After a crash it is in the temporary.
/// - `.create` (`convert` and `export` without `--force`): as `.replace`, but `commit()` puts the
///   file in place only when nothing is at the destination, with `link(2)`, which never replaces:
///   a file that appeared there meanwhile is left as it is, and `commit()` throws `.exists`.
///
/// Whether an existing destination is replaced at all is the caller's decision (it checks before
/// it begins, to say so before any work); `.replace` and `.stream` always replace. A destination that is a symbolic link stays one: the file it points to is replaced
/// (in its own folder); a link that leads to no file is refused (`.link`), never replaced by a file.
/// A destination that is there but not a regular file (a character device such as /dev/null, a
/// FIFO, a terminal, /dev/stdout) is opened and written in place in every mode: a file renamed
/// over it would replace the device. The new file gets the permissions of the one it replaces, else those a new file gets (0666
/// less the umask). `Sendable`: its state is behind a mutex, and one write is whole before the next.
public final class OutputFile: Sendable {
    public enum Mode: Sendable {
        /// Written to a temporary, renamed over the destination by `commit()`, else removed.
        case replace
        /// Written to a temporary, linked into place by `commit()` when nothing is at the
        /// destination, else removed.
        case create
        /// Written in place when the destination is new; else as `.replace`, but renamed over the
        /// destination whether or not `commit()` is called.
        case stream
    }

    /// The path the file ends up at (a symbolic link's target).
    public let path: String
    /// The temporary it is written to until `commit()`, or nil when written in place.
    public let temporaryPath: String?
    public let mode: Mode

    private struct State {
        var descriptor: Int32
        var committed = false
    }

    /// Whether `commit()` syncs the file: not for a device or FIFO written in place, which
    /// `fsync(2)` refuses (EINVAL) and which hold nothing to sync.
    private let syncs: Bool

    private let state: Mutex<State>

    /// The temporaries of unfinished `.replace` files, which `OutputFileSignals` removes.
    static let temporaries = Mutex<Set<String>>([])

    /// Creates the file (the temporary, or in place). The corresponding C call is `open(2)` with
    /// `O_CREAT | O_EXCL`.
    public init(_ destination: URL, mode: Mode) throws(OutputFileError) {
        self.mode = mode
        if let descriptor = try Self.openInPlaceIfNotRegular(destination.path) {
            path = destination.path
            temporaryPath = nil
            syncs = false
            state = Mutex(State(descriptor: descriptor))
            return
        }
        let path = try Self.resolvingLink(destination.path)
        self.path = path
        syncs = true
        if mode == .stream {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if descriptor >= 0 {
                temporaryPath = nil
                state = Mutex(State(descriptor: descriptor))
                return
            }
            guard errno == EEXIST else { throw OutputFileError(.create, path: path, errno: errno) }
        }
        let (temporary, descriptor) = try Self.createTemporary(beside: path)
        // The permissions of the file it replaces.
        var existing = stat()
        if stat(path, &existing) == 0, existing.st_mode & S_IFMT == S_IFREG {
            _ = fchmod(descriptor, existing.st_mode & 0o777)
        }
        temporaryPath = temporary
        state = Mutex(State(descriptor: descriptor))
        if mode != .stream { _ = Self.temporaries.withLock { $0.insert(temporary) } }
    }

    /// Writes all of `bytes`. The corresponding C call is `write(2)`.
    public func write(_ bytes: [UInt8]) throws(OutputFileError) {
        guard !bytes.isEmpty else { return }
        let failure: Int32? = state.withLock { state in
            guard !state.committed else { return EBADF }
            return bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = Glibc.write(state.descriptor, raw.baseAddress! + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return errno
                    }
                    offset += written
                }
                return nil
            }
        }
        if let failure { throw OutputFileError(.write, path: path, errno: failure) }
    }

    /// Finishes the file: syncs it to disk and renames the temporary over the destination (and
    /// syncs the folder, so that the rename survives a power cut); `.create` links it there
    /// instead and throws `.exists` when something is there. Calling it again does nothing.
    /// The corresponding C calls are `fsync(2)`, `close(2)` and `rename(2)` (`link(2)` and
    /// `unlink(2)` for `.create`).
    public func commit() throws(OutputFileError) {
        let failure: OutputFileError? = state.withLock { state in
            guard !state.committed else { return nil }
            state.committed = true
            let synced = !syncs || fsync(state.descriptor) == 0 ? 0 : errno
            close(state.descriptor)
            guard let temporaryPath else { return synced == 0 ? nil : OutputFileError(.sync, path: path, errno: synced) }
            return Self.temporaries.withLock { temporaries in
                temporaries.remove(temporaryPath)
                if synced != 0 {
                    unlink(temporaryPath)
                    return OutputFileError(.sync, path: path, errno: synced)
                }
                if mode == .create {
                    switch Self.link(temporaryPath, to: path) {
                    case .linked: return nil
                    case .failed(let error): return error
                    case .unsupported: break  // renamed below
                    }
                }
                guard rename(temporaryPath, path) == 0 else {
                    let code = errno
                    unlink(temporaryPath)
                    return OutputFileError(.rename, path: path, errno: code)
                }
                Self.syncFolder(of: path)
                return nil
            }
        }
        if let failure { throw failure }
    }

    /// What `.create`'s commit did.
    private enum LinkResult {
        /// The file is in place, the temporary removed.
        case linked
        /// Something is at the destination (`.exists`), or linking failed; the temporary is removed.
        case failed(OutputFileError)
        /// The file system has no hard links (FAT, some network ones) and nothing is at the
        /// destination: the temporary is left to be renamed there (a file appearing between the
        /// look and the rename would be replaced: the best such a file system allows).
        case unsupported
    }

    /// `.create`'s commit: links `temporary` to `path`, which fails when anything is there.
    private static func link(_ temporary: String, to path: String) -> LinkResult {
        if Glibc.link(temporary, path) == 0 {
            unlink(temporary)
            syncFolder(of: path)
            return .linked
        }
        let code = errno
        var status = stat()
        if code == EEXIST || lstat(path, &status) == 0 {
            unlink(temporary)
            return .failed(OutputFileError(.exists, path: path, errno: EEXIST))
        }
        guard [EPERM, EOPNOTSUPP, ENOSYS, EMLINK].contains(code) else {
            unlink(temporary)
            return .failed(OutputFileError(.create, path: path, errno: code))
        }
        return .unsupported
    }

    /// `.replace` and `.create`: removes the temporary, leaving the destination as it was. `.stream`: commits.
    deinit {
        if mode == .stream {
            try? commit()
            return
        }
        state.withLock { state in
            guard !state.committed else { return }
            state.committed = true
            close(state.descriptor)
            guard let temporaryPath else { return }
            Self.temporaries.withLock { temporaries in
                temporaries.remove(temporaryPath)
                unlink(temporaryPath)
            }
        }
    }

    /// Removes every unfinished `.replace` temporary, then calls `body` with them still locked (so
    /// that no file is committed meanwhile): what a signal does before it ends the process.
    static func removeTemporaries(then body: () -> Void) {
        temporaries.withLock { temporaries in
            for path in temporaries { unlink(path) }
            temporaries.removeAll()
            body()
        }
    }

    /// Whether anything is at `path`: a file, a folder, a symbolic link (one that points nowhere
    /// too). What `.create` will not replace. The corresponding C call is `lstat(2)`.
    public static func isTaken(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// The prefix of every temporary beside `name`: `.NAME.sensorbridge-` (NAME shortened to
    /// keep the whole within the 255 bytes a file name may have).
    public static func temporaryPrefix(for name: String) -> String {
        var name = Substring(name)
        while name.utf8.count > 200 { name = name.dropLast() }
        return ".\(name).sensorbridge-"
    }

    /// A new temporary in the destination's folder: `.NAME.sensorbridge-` and 8 random hex digits,
    /// created with `O_EXCL` (mode 0666 less the umask, as a new file).
    private static func createTemporary(beside path: String) throws(OutputFileError) -> (String, Int32) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let prefix = temporaryPrefix(for: url.lastPathComponent)
        for _ in 0..<100 {
            let suffix = String(UInt32.random(in: .min ... .max), radix: 16)
            let temporary = folder + "/" + prefix + String(repeating: "0", count: 8 - suffix.count) + suffix
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if descriptor >= 0 { return (temporary, descriptor) }
            guard errno == EEXIST else { throw OutputFileError(.create, path: path, errno: errno) }
        }
        throw OutputFileError(.create, path: path, errno: EEXIST)
    }

    /// A descriptor open for writing on `path` when what is there (its links followed) is neither
    /// a regular file nor a folder (which the rename refuses), else nil. The corresponding C calls
    /// are `stat(2)` and `open(2)`.
    private static func openInPlaceIfNotRegular(_ path: String) throws(OutputFileError) -> Int32? {
        var status = stat()
        guard stat(path, &status) == 0, ![S_IFREG, S_IFDIR].contains(status.st_mode & S_IFMT) else { return nil }
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw OutputFileError(.create, path: path, errno: errno) }
        return descriptor
    }

    /// The target of a symbolic link, else `path` itself. A link that leads to no file (or in a
    /// loop) throws `.link`: the file renamed there would replace the link.
    private static func resolvingLink(_ path: String) throws(OutputFileError) -> String {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return path }
        guard let resolved = realpath(path, nil) else { throw OutputFileError(.link, path: path, errno: errno) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Syncs the folder's entry list; file systems that cannot sync a folder are left as they are.
    private static func syncFolder(of path: String) {
        let folder = open(URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return }
        _ = fsync(folder)
        close(folder)
    }
}
