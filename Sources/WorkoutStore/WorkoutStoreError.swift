public import Foundation
import PostgreSQL

/// Why the store could not do what was asked. Every case says what is wrong and what to do; a
/// failed change is rolled back, so the store is as it was.
public enum WorkoutStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file is not a SQLite database (SQLite's `SQLITE_NOTADB`).
    case notADatabase(path: String)
    /// The file is a SQLite database, but another program's: `reason` says what gives it away.
    case notOurs(path: String, reason: String)
    /// The database is damaged (`SQLITE_CORRUPT`).
    case corrupt(path: String, SQLiteError)
    /// The database was written by a newer build: its schema version is `version`, this build knows up to `known`.
    case newerSchema(path: String, version: Int64, known: Int64)
    /// A store opened only for reading has an older schema, which reading cannot migrate.
    case olderSchema(path: String, version: Int64, known: Int64)
    /// There is no store at this path, and a command that only reads creates none.
    case noStore(path: String)
    /// The file or its folder cannot be written (permissions, a read-only file system).
    case readOnly(path: String, reason: String)
    /// The disk is full (`SQLITE_FULL`).
    case diskFull(path: String)
    /// The file or its folder could not be opened or created.
    case cannotOpen(path: String, reason: String)
    /// Another process kept the database locked for longer than the busy timeout.
    case busy(path: String)
    /// No workout has this id.
    case notFound(WorkoutID)
    /// No workout has this UUID.
    case uuidNotFound(UUID)
    /// No athlete has this name.
    case noAthlete(String)
    /// An athlete has this name already (in some case).
    case athleteExists(String)
    /// The workout was never finished (the recording stopped); recover or discard it first.
    case unfinished(WorkoutID)
    /// The workout is being recorded now, by the bridge and process named when the store knows
    /// them; it is whole once that recording finishes.
    case recording(WorkoutID, bridge: String?, processID: Int32?)
    /// The workout is finished; there is nothing to recover.
    case alreadyFinished(WorkoutID)
    /// A recording of this workout is still running in a live process.
    case recordingInProgress(WorkoutID)
    /// The database holds something this build cannot read back (a value outside the model).
    case invalidData(path: String, reason: String)
    /// Any other SQLite error.
    case sqlite(path: String, SQLiteError)
    /// The PostgreSQL server could not be reached, went away, or refused a statement; what was
    /// being changed was rolled back there.
    case server(path: String, reason: String)

    public var description: String {
        switch self {
        case .notADatabase(let path):
            "\(path) is not a SQLite database (is it another file given by mistake?); it was left unchanged. "
                + "Give the workout store's path with --store, or move this file away to start a new store there"
        case .notOurs(let path, let reason) where Self.isPostgreSQL(path):
            "\(path) is a PostgreSQL database, but not a SensorBridge workout store (\(reason)); it was left unchanged. "
                + "Give the URL of the workout store's database with --store, or of an empty database to start a new store there"
        case .notOurs(let path, let reason):
            "\(path) is a SQLite database, but not a SensorBridge workout store (\(reason)); it was left unchanged. "
                + "Give the workout store's path with --store, or a new file name to start a new store there"
        case .corrupt(let path, let error):
            "\(path) is damaged (\(error.message)); it was left unchanged. Restore it from a backup, or move it "
                + "away to start a new store"
        case .newerSchema(let path, let version, let known):
            "\(path) has schema version \(version), but this sensorbridge knows versions up to \(known): a newer "
                + "sensorbridge wrote it. It was left unchanged; use that newer sensorbridge, or give another store with --store"
        case .olderSchema(let path, let version, let known):
            "\(path) has schema version \(version), older than this sensorbridge's \(known), and this command only "
                + "reads it. It was left unchanged; any command that saves (replay --save, record, serve, run by the "
                + "store's owner) brings it up to date"
        case .noStore(let path):
            "there is no workout store at \(path), and none was created. Check the path (--store or "
                + "SENSORBRIDGE_STORE); a store is made by the first workout saved (replay --save, record or serve)"
        case .readOnly(let path, let reason):
            "cannot write \(path): \(reason). Nothing was changed; make the file and its folder writable, or give "
                + "a writable path with --store or SENSORBRIDGE_STORE"
        case .diskFull(let path):
            "the disk holding \(path) is full; the change was rolled back and nothing was saved. Free some space and "
                + "run the command again"
        case .cannotOpen(let path, let reason) where Self.isPostgreSQL(path):
            "cannot open \(path): \(reason). Nothing was changed; check the URL given with --store or SENSORBRIDGE_STORE "
                + "(postgresql://USER@HOST[:PORT]/DATABASE), that the server is running and that the user may use that database"
        case .cannotOpen(let path, let reason):
            "cannot open \(path): \(reason). Nothing was changed; give a path you can create files in with --store "
                + "or SENSORBRIDGE_STORE"
        case .busy(let path):
            "\(path) is locked by another process; nothing was changed. Run the command again when the other "
                + "sensorbridge has finished"
        case .notFound(let id):
            "there is no workout \(id); 'sensorbridge workouts list' shows the ids"
        case .noAthlete(let name):
            "there is no athlete '\(name)'; 'sensorbridge athletes list' shows them, 'sensorbridge athletes add NAME' adds one"
        case .athleteExists(let name):
            "there is an athlete '\(name)' already; 'sensorbridge athletes list' shows them"
        case .uuidNotFound(let uuid):
            "there is no workout \(uuid.uuidString.lowercased()); 'sensorbridge workouts list --json' shows the UUIDs"
        case .unfinished(let id):
            "workout \(id) was never finished (its recording stopped); run 'sensorbridge workouts recover' to finish "
                + "it from what was saved, or 'sensorbridge workouts recover --discard' to delete it"
        case .recording(let id, let bridge, let processID):
            "workout \(id) is being recorded now"
                + (processID.map { " by sensorbridge process \($0)" } ?? "") + (bridge.map { " on bridge \($0)" } ?? "")
                + "; it can be shown once that recording has finished"
        case .alreadyFinished(let id):
            "workout \(id) is finished already; there is nothing to recover"
        case .recordingInProgress(let id):
            "workout \(id) is still being recorded by a running sensorbridge; stop that recording first"
        case .invalidData(let path, let reason):
            "\(path) holds data this sensorbridge cannot read (\(reason)); it was left unchanged"
        case .sqlite(let path, let error):
            "\(path): \(error)"
        case .server(let path, let reason):
            "\(path): \(reason); nothing was changed there. Check that the server is running and that --store "
                + "or SENSORBRIDGE_STORE names it right, then run the command again"
        }
    }

    /// What went wrong, without the advice `description` adds, for messages that give their own
    /// ("the disk holding PATH is full").
    public var reason: String {
        switch self {
        case .diskFull(let path): "the disk holding \(path) is full"
        case .readOnly(let path, let reason): "cannot write \(path): \(reason)"
        case .busy(let path): "\(path) is locked by another process"
        default: description
        }
    }

    /// The store's reading of a SQLite error on the database at `path`.
    init(_ error: SQLiteError, path: String) {
        switch error.code {
        case .notADatabase: self = .notADatabase(path: path)
        case .corrupt: self = .corrupt(path: path, error)
        case .full: self = .diskFull(path: path)
        case .readOnly: self = .readOnly(path: path, reason: error.message)
        case .busy, .locked: self = .busy(path: path)
        case .cannotOpen, .ioError, .permission:
            switch error.systemErrno {
            case ENOSPC: self = .diskFull(path: path)
            case EACCES, EPERM, EROFS: self = .readOnly(path: path, reason: Self.systemReason(error))
            default:
                self = error.code == .ioError
                    ? .sqlite(path: path, error) : .cannotOpen(path: path, reason: Self.systemReason(error))
            }
        default: self = .sqlite(path: path, error)
        }
    }

    /// The store's reading of a PostgreSQL error on the database named `path`.
    init(_ error: PostgreSQLError, path: String) {
        switch error.kind {
        case .connectionFailed: self = .server(path: path, reason: "cannot connect: \(error.message)")
        case .connectionLost: self = .server(path: path, reason: "the connection to the server was lost (\(error.message))")
        default:
            let state = error.sqlState.map { " (SQLSTATE \($0))" } ?? ""
            self = .server(path: path, reason: "the server refused a statement: \(error.message)\(state)")
        }
    }

    /// Whether a store's path is a PostgreSQL database's URL (`StoreAddress`), for advice about
    /// the server rather than about files.
    private static func isPostgreSQL(_ path: String) -> Bool {
        path.hasPrefix("postgresql://") || path.hasPrefix("postgres://")
    }

    private static func systemReason(_ error: SQLiteError) -> String {
        guard error.systemErrno != 0 else { return error.message }
        return "\(error.message): \(String(cString: strerror(error.systemErrno)))"
    }
}
