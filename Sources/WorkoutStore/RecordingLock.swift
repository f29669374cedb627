import Foundation

/// The lock a recording holds: `flock(2)` on a file beside the store, `<store>-recording-<id>`.
///
/// The kernel drops the lock when the process ends, however it ends (`kill -9` and power cuts
/// included), so an unfinished workout whose lock can be taken is one whose recording stopped,
/// and one whose lock is held is still being recorded. `flock` locks belong to an open file, so
/// this holds between two stores in one process too.
final class RecordingLock {
    let path: String
    private let descriptor: Int32

    /// Creates the file and takes the lock.
    ///
    /// - Throws: `.readOnly` or `.cannotOpen` when the file cannot be created, `.busy` when another
    ///   open file holds the lock.
    init(path: String) throws(WorkoutStoreError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            let reason = "cannot create the recording lock \(path): \(String(cString: strerror(code)))"
            throw [EACCES, EPERM, EROFS].contains(code)
                ? .readOnly(path: path, reason: reason) : .cannotOpen(path: path, reason: reason)
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw .busy(path: path)
        }
        self.path = path
        self.descriptor = descriptor
    }

    /// Releases the lock (by closing the file).
    deinit { close(descriptor) }

    /// Whether an open file holds the lock at `path` (false when there is no such file).
    static func isHeld(at path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(descriptor, LOCK_UN)
        return false
    }

    /// Deletes the lock file (after the recording is finished, discarded or recovered).
    static func remove(at path: String) { unlink(path) }
}

extension WorkoutStore {
    /// Where the recording lock of workout `id` lives; nil for an in-memory store.
    func recordingLockPath(_ id: WorkoutID) -> String? {
        path == Self.inMemoryPath || isShared ? nil : "\(path)-recording-\(id)"
    }
}
