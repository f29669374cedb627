import Foundation

/// The store's file as the operating system sees it, before SQLite opens it: creating a new store
/// so that nobody sees it half-made, and refusing one this process cannot write before SQLite
/// creates anything beside it (DESIGN.md §3 "Storage").
enum StoreFile {
    /// Builds a new store with `build` under a temporary name in `path`'s folder, then links it to
    /// `path`. When another process created `path` meanwhile, its store is kept and this one is
    /// thrown away: both then open the same file. The temporary file and its `-wal`/`-shm` are
    /// removed on every path.
    ///
    /// `link(2)` never replaces an existing file; on a file system without hard links (FAT, some
    /// network and FUSE file systems) the store is renamed into place if `path` is still free.
    static func create(_ path: String, build: (String) throws -> SQLiteConnection) throws {
        let folder = (path as NSString).deletingLastPathComponent
        let temporary =
            (folder.isEmpty ? "" : folder + "/")
            + temporaryPrefix(of: path) + "\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) } }
        let descriptor = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw systemError(errno, path: path, doing: "cannot create the file") }
        close(descriptor)
        // Closing the connection checkpoints its write-ahead log into the file and deletes it.
        do { let connection = try build(temporary); withExtendedLifetime(connection) {} }
        if link(temporary, path) != 0 {
            let code = errno
            switch code {
            case EEXIST: return  // another process made the store first: that one is used
            case EPERM, ENOTSUP, ENOSYS:
                guard !FileManager.default.fileExists(atPath: path) else { return }
                guard rename(temporary, path) == 0 else { throw systemError(errno, path: path, doing: "cannot create the file") }
            default: throw systemError(code, path: path, doing: "cannot create the file")
            }
        }
        // The new name is on disk before anything is recorded under it.
        let folderDescriptor = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)
            close(folderDescriptor)
        }
    }

    /// `.NAME.new-`: what the temporaries of `create` for `path` start with, before `PID-RANDOM`.
    private static func temporaryPrefix(of path: String) -> String {
        ".\((path as NSString).lastPathComponent).new-"
    }

    /// Removes what `create` left of `path`'s temporaries when its process died before cleaning up
    /// (`kill -9`, a power cut): those named `.NAME.new-PID-RANDOM` (and their `-wal`, `-shm`,
    /// `-journal`) whose PID is no running process. Another process's temporary is kept while it
    /// runs: it may be creating the store this moment. A PID reused since keeps its temporary
    /// until that process ends too. What cannot be removed is left; it stops nothing.
    static func removeAbandonedTemporaries(of path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        let prefix = temporaryPrefix(of: path)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder) else { return }
        for name in names where name.hasPrefix(prefix) {
            // PID-RANDOM, then an optional suffix of SQLite's.
            let parts = name.dropFirst(prefix.count).split(separator: "-", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2, parts[0].allSatisfy({ $0.isASCII && $0.isNumber }), let pid = pid_t(parts[0]), pid > 0,
                UInt32(parts[1], radix: 16) != nil,
                parts.count == 2 || ["wal", "shm", "journal"].contains(parts[2])
            else { continue }
            // ESRCH: no such process. EPERM means one runs under another user.
            guard kill(pid, 0) != 0, errno == ESRCH else { continue }
            unlink((folder.isEmpty ? "" : folder + "/") + name)
        }
    }

    /// Refuses a store this process may not write (the file, its write-ahead log or its
    /// shared-memory index), before SQLite opens it: SQLite would open a write-protected database
    /// read-only and create a write-protected `-shm` beside it, which then blocks writing after the
    /// file's permissions are fixed.
    ///
    /// It asks with `access(2)` rather than opening the file: closing any descriptor of a database
    /// drops the POSIX locks that another connection of this process holds on it.
    static func checkWritable(_ path: String) throws(WorkoutStoreError) {
        let files = [
            (path, "the file is write-protected"),
            (path + "-wal", "its write-ahead log \(path)-wal is write-protected"),
            (path + "-shm", "its shared-memory index \(path)-shm is write-protected"),
        ]
        for (file, reason) in files where access(file, W_OK) != 0 {
            let code = errno
            switch code {
            case ENOENT where file != path: continue
            case EACCES, EPERM: throw .readOnly(path: path, reason: reason)
            case EROFS: throw .readOnly(path: path, reason: "it is on a read-only file system")
            default: throw systemError(code, path: path, doing: "cannot open \(file)")
            }
        }
    }

    /// The store's reading of a failed system call on its file.
    static func systemError(_ code: Int32, path: String, doing what: String) -> WorkoutStoreError {
        let reason = "\(what): \(String(cString: strerror(code)))"
        switch code {
        case EACCES, EPERM, EROFS: return .readOnly(path: path, reason: reason)
        case ENOSPC, EDQUOT: return .diskFull(path: path)
        default: return .cannotOpen(path: path, reason: reason)
        }
    }

    /// What tells whether a file changed: its identity, size and change time (`stat(2)`), and its owner.
    struct Stamp: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var changed: timespec
        var owner: uid_t

        init?(_ path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            (device, inode, size, owner) = (UInt64(info.st_dev), UInt64(info.st_ino), Int64(info.st_size), info.st_uid)
            changed = info.st_ctim
        }

        static func == (a: Stamp, b: Stamp) -> Bool {
            (a.device, a.inode, a.size, a.owner, a.changed.tv_sec, a.changed.tv_nsec)
                == (b.device, b.inode, b.size, b.owner, b.changed.tv_sec, b.changed.tv_nsec)
        }
    }
}
