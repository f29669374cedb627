import Foundation

/// The lock a recording holds: `flock(2)` on a file beside the store, `<store>-recording-<id>`,
/// which holds the recording process's id.
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
        // Who records, for `workouts list` and `show` to say (`holder(at:)`).
        let processID = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = processID.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        self.path = path
        self.descriptor = descriptor
    }

    /// Releases the lock (by closing the file).
    deinit { close(descriptor) }

    /// Whether an open file holds the lock at `path` (false when there is no such file).
    static func isHeld(at path: String) -> Bool { holder(at: path) != nil }

    /// The recording that holds the lock at `path`, nil when none does (no file, or a free lock).
    static func holder(at path: String) -> RecordingProcess? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            guard errno == EWOULDBLOCK else { return nil }
            var bytes = [UInt8](repeating: 0, count: 16)
            let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
            let text = String(decoding: bytes.prefix(max(count, 0)), as: UTF8.self)
            return RecordingProcess(processID: Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        flock(descriptor, LOCK_UN)
        return nil
    }

    /// Deletes the lock file (after the recording is finished, discarded or recovered).
    static func remove(at path: String) { unlink(path) }
}

/// A process recording a workout now (it holds the workout's recording lock).
public struct RecordingProcess: Sendable, Hashable {
    /// Its process id; nil when the lock file does not say (a sensorbridge from before it did).
    public let processID: Int32?
}

extension WorkoutStore {
    /// The process recording workout `id` now, or nil when none is (it is finished, or its
    /// recording stopped: then it can be recovered).
    func recordingProcess(_ id: WorkoutID) -> RecordingProcess? {
        recordingLockPath(id).flatMap(RecordingLock.holder(at:))
    }

    /// Where the recording lock of workout `id` lives; nil for an in-memory store.
    func recordingLockPath(_ id: WorkoutID) -> String? {
        path == Self.inMemoryPath || isShared ? nil : "\(path)-recording-\(id)"
    }
}
