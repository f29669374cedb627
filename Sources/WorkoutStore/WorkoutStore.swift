import Foundation
import PostgreSQL
import SensorCore
import Zones

/// Finished workouts with their samples and zone groups, unfinished recordings, and the person's
/// zone preferences, in one SQLite file (DESIGN.md §3 "Storage"), or in a PostgreSQL database
/// shared by many bridges (`init(address:)`).
///
/// The database runs in WAL mode with foreign keys on and `synchronous = FULL` (a committed
/// journal flush survives a power cut), waits up to 5 s for another process's lock, and is brought
/// to this build's schema by numbered migrations when opened. A database written by a newer build
/// is refused and left unchanged.
///
/// One store is one connection: use it from one thread at a time. `WorkoutRecorder` opens its own.
public final class WorkoutStore {
    private(set) var connection: any StoreDatabase
    /// A store opened for reading as an unlocked snapshot (`init(readingAt:)`): the file as it was then.
    private var snapshot: StoreFile.Stamp?
    /// Zone configurations by row id, read once (rows are never changed).
    private var configurationsByID: [Int64: WorkoutZoneConfiguration] = [:]

    /// The file name the store was opened with (`:memory:` for an in-memory store), or the
    /// PostgreSQL database's URL without its password and parameters.
    public var path: String { standingFor ?? location }
    private let location: String
    /// The file an empty in-memory store stands for (`empty(standingFor:)`).
    private var standingFor: String?

    /// The path of an in-memory store, gone when the store is.
    public static let inMemoryPath = ":memory:"

    /// The newest schema version this build knows (`PRAGMA user_version` once migrated).
    public static var schemaVersion: Int64 { Schema.version }

    /// Opens the store at `path`, creating the file and its folders when missing, and migrates it.
    ///
    /// A new store is built under a temporary name in the same folder and linked into place only
    /// once it is complete, so that a process never sees a half-made store and two processes
    /// creating one at once both end up using the same file. A file that is not a SensorBridge
    /// store, one from a newer build, or one this process could not write is refused before SQLite
    /// writes anything to it or beside it.
    ///
    /// - Throws: `WorkoutStoreError`: `.notADatabase`, `.notOurs`, `.newerSchema`, `.readOnly`,
    ///   `.diskFull`, `.cannotOpen`, ... A file this build cannot use is left as it was.
    public convenience init(path: String) throws(WorkoutStoreError) {
        try self.init(path: path, migrations: Schema.migrations)
    }

    init(path: String, migrations: [Migration]) throws(WorkoutStoreError) {
        do {
            if path != Self.inMemoryPath {
                StoreFile.removeAbandonedTemporaries(of: path)
                if !FileManager.default.fileExists(atPath: path) {
                    try Self.createFolder(of: path)
                    try StoreFile.create(path) { try Self.openConnection($0, migrations: migrations) }
                }
                try StoreFile.checkWritable(path)
            }
            connection = try Self.openConnection(path, migrations: migrations)
            location = path
        } catch {
            throw Self.storeError(error, path: path)
        }
    }

    /// Opens the store at `path` for reading only: nothing is created, migrated or written, in the
    /// file or beside it, so a store of another user (the service's, readable by its group) can be
    /// read by anyone who may read the file.
    ///
    /// SQLite reads a WAL database through its `-shm` file and makes one when it is missing; one
    /// made by another user than the store's owner would stop the owner's next write. So when the
    /// store is not this user's and no writer has it open (no `-wal` beside it), it is read as an
    /// immutable snapshot, without locks, and each read is checked afterwards: a writer changes the
    /// file only through a WAL, so if no `-wal` appeared and the file is unchanged, what was read is
    /// whole; otherwise the read is made again on a fresh connection.
    ///
    /// A store of an older schema is brought up to date first when it is this user's and writable
    /// (as any command of this build would on first use); anyone else's is refused (`.olderSchema`).
    ///
    /// - Throws: `.noStore` when there is no file; `.olderSchema`; `.notOurs`, `.notADatabase`,
    ///   `.newerSchema`, `.cannotOpen`, ... as `init(path:)`.
    public init(readingAt path: String) throws(WorkoutStoreError) {
        guard FileManager.default.fileExists(atPath: path) else { throw .noStore(path: path) }
        do {
            do {
                (connection, snapshot) = try Self.openForReading(path)
                location = path
            } catch WorkoutStoreError.olderSchema where StoreFile.Stamp(path)?.owner == geteuid() && access(path, W_OK) == 0 {
                _ = try WorkoutStore(path: path)
                (connection, snapshot) = try Self.openForReading(path)
                location = path
            }
        } catch {
            throw Self.storeError(error, path: path)
        }
    }

    /// Opens the store at `address`: a SQLite file as `init(path:)`, or a PostgreSQL database,
    /// migrated to this build's schema (an empty database gets the whole schema).
    ///
    /// - Throws: as `init(path:)`; for PostgreSQL, `.server` when it cannot be reached,
    ///   `.notOurs` for a database holding other tables, `.newerSchema`.
    public convenience init(address: StoreAddress) throws(WorkoutStoreError) {
        switch address {
        case .sqlite(let path): try self.init(path: path)
        case .postgreSQL(let conninfo, let name): try self.init(postgreSQL: conninfo, name: name)
        }
    }

    /// Opens the store at `address` to read it: a SQLite file as `init(readingAt:)`; a
    /// PostgreSQL database as `init(address:)` (the server keeps readers and writers apart).
    public convenience init(readingAt address: StoreAddress) throws(WorkoutStoreError) {
        switch address {
        case .sqlite(let path): try self.init(readingAt: path)
        case .postgreSQL(let conninfo, let name): try self.init(postgreSQL: conninfo, name: name)
        }
    }

    private init(postgreSQL conninfo: String, name: String) throws(WorkoutStoreError) {
        do {
            let server = try PostgreSQLConnection(conninfo)
            // Dates as ISO text and messages in English whatever the server's defaults.
            try server.execute("SET DateStyle = ISO, YMD; SET lc_messages = 'C'")
            try PostgreSQLSchema.migrate(server, name: name)
            connection = PostgreSQLDatabase(server)
            location = name
        } catch {
            throw Self.storeError(error, path: name)
        }
    }

    /// Whether the store is a PostgreSQL database.
    public var isShared: Bool { connection.dialect == .postgreSQL }

    /// The connection of a SQLite store; nil for PostgreSQL.
    var sqlite: SQLiteConnection? { connection as? SQLiteConnection }

    private static func openForReading(_ path: String) throws -> (SQLiteConnection, StoreFile.Stamp?) {
        let stamp = StoreFile.Stamp(path)
        let asSnapshot = (stamp.map { $0.owner != geteuid() } ?? false) && !FileManager.default.fileExists(atPath: path + "-wal")
        let connection = try SQLiteConnection(path: path, access: asSnapshot ? .immutable : .readOnly)
        connection.setBusyTimeout(milliseconds: 5000)
        let known = Schema.version
        switch try StoreIdentity(connection) {
        case .ours(version: known): break
        case .ours(let version) where version > known: throw WorkoutStoreError.newerSchema(path: path, version: version, known: known)
        case .ours(let version): throw WorkoutStoreError.olderSchema(path: path, version: version, known: known)
        case .blank: throw WorkoutStoreError.notOurs(path: path, reason: "it is empty")
        case .foreign(let reason): throw WorkoutStoreError.notOurs(path: path, reason: reason)
        }
        return (connection, asSnapshot ? stamp : nil)
    }

    /// An empty in-memory store that messages name `path`: what a command that only reads sees
    /// where no store was made yet.
    public static func empty(standingFor path: String) throws(WorkoutStoreError) -> WorkoutStore {
        let store = try WorkoutStore(path: inMemoryPath)
        store.standingFor = path
        return store
    }

    /// Whether this store only reads (`init(readingAt:)`).
    public var isReadOnly: Bool { connection.isReadOnly }

    private static func openConnection(_ path: String, migrations: [Migration]) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, access: .readWrite(create: path == inMemoryPath))
        connection.setBusyTimeout(milliseconds: 5000)
        // Read before writing anything: a file that is not a database, another program's database
        // or one from a newer build must be left exactly as it is.
        let known = migrations.last?.version ?? 0
        switch try StoreIdentity(connection) {
        case .blank, .ours(version: ...known): break
        case .ours(let version): throw WorkoutStoreError.newerSchema(path: path, version: version, known: known)
        case .foreign(let reason): throw WorkoutStoreError.notOurs(path: path, reason: reason)
        }
        guard !connection.isReadOnly else {
            throw WorkoutStoreError.readOnly(path: path, reason: "the file is write-protected")
        }
        let mode = try switchToWAL(connection)
        guard mode == "wal" || path == inMemoryPath else {
            throw WorkoutStoreError.cannotOpen(
                path: path, reason: "SQLite could not switch it to WAL mode (it stayed in \(mode ?? "?") mode)")
        }
        try connection.execute("PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL")
        try Migration.migrate(connection, with: migrations)
        return connection
    }

    /// `PRAGMA journal_mode = WAL`, tried again for up to 5 s while another connection holds a lock:
    /// SQLite answers a journal-mode change on a database in rollback mode (a store SensorBridge did
    /// not make, an empty file) with `SQLITE_BUSY` at once, without waiting on the busy timeout.
    private static func switchToWAL(_ connection: SQLiteConnection) throws(SQLiteError) -> String? {
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            do {
                return try connection.scalarText("PRAGMA journal_mode = WAL")
            } catch where error.code == .busy && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
    }

    /// Creates the folders above `path` (as `mkdir -p`).
    private static func createFolder(of path: String) throws(WorkoutStoreError) {
        let folder = (path as NSString).deletingLastPathComponent
        guard !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) else { return }
        try createFolder(of: folder)
        guard mkdir(folder, 0o755) == 0 || errno == EEXIST else {
            let code = errno
            let reason = "cannot create the folder \(folder): \(String(cString: strerror(code)))"
            throw [EACCES, EPERM, EROFS].contains(code)
                ? .readOnly(path: path, reason: reason) : .cannotOpen(path: path, reason: reason)
        }
    }

    /// The default location: `$XDG_DATA_HOME/sensorbridge/workouts.sqlite` when `XDG_DATA_HOME` is
    /// an absolute path (the XDG Base Directory rule), else `$HOME/.local/share/sensorbridge/workouts.sqlite`;
    /// nil when neither is set.
    public static func defaultPath(environment: [String: String]) -> String? {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/sensorbridge/workouts.sqlite"
        }
        if let home = environment["HOME"], !home.isEmpty {
            return home + "/.local/share/sensorbridge/workouts.sqlite"
        }
        return nil
    }

    // MARK: Errors

    /// Runs `body`, turning whatever it throws into a `WorkoutStoreError` about this store.
    func perform<T>(_ body: () throws -> T) throws(WorkoutStoreError) -> T {
        do {
            var result = try body()
            // A snapshot read that a writer may have overlapped is made again (`init(readingAt:)`).
            var attempts = 0
            while let snapshot, FileManager.default.fileExists(atPath: path + "-wal") || StoreFile.Stamp(path) != snapshot {
                attempts += 1
                guard attempts <= 10 else { throw WorkoutStoreError.busy(path: path) }
                (connection, self.snapshot) = try Self.openForReading(path)
                result = try body()
            }
            return result
        } catch {
            throw Self.storeError(error, path: path)
        }
    }

    /// `perform` in one transaction.
    func performTransaction<T>(_ body: () throws -> T) throws(WorkoutStoreError) -> T {
        try perform { try connection.transaction(body) }
    }

    static func storeError(_ error: any Error, path: String) -> WorkoutStoreError {
        switch error {
        case let error as WorkoutStoreError: error
        case let error as SQLiteError: WorkoutStoreError(error, path: path)
        case let error as PostgreSQLError: WorkoutStoreError(error, path: path)
        default: .invalidData(path: path, reason: "\(error)")
        }
    }

    // MARK: Zone configurations

    /// The row id of `configuration`, inserting it when it is new.
    func configurationID(_ configuration: WorkoutZoneConfiguration) throws -> Int64 {
        let boundaries = Self.boundariesText(configuration.boundaryValues)
        let type = Int64(configuration.quantityType.rawValue)
        try connection.statement(
            """
            INSERT INTO zone_configurations (quantity_type, source, unit, boundaries) VALUES (?, ?, ?, ?)
            ON CONFLICT (quantity_type, source, boundaries) DO NOTHING
            """
        ).run(type, configuration.source.rawValue, configuration.unit.symbol, boundaries)
        let id = try connection.statement(
            "SELECT id FROM zone_configurations WHERE quantity_type = ? AND source = ? AND boundaries = ?"
        ).firstRow(type, configuration.source.rawValue, boundaries) { $0.int64(0) }
        return id!
    }

    /// The configuration stored as row `id`.
    func configuration(id: Int64) throws -> WorkoutZoneConfiguration {
        if let known = configurationsByID[id] { return known }
        let row = try connection.statement(
            "SELECT quantity_type, source, boundaries FROM zone_configurations WHERE id = ?"
        ).firstRow(id) { ($0.int(0), $0.text(1), $0.text(2)) }
        guard let (typeValue, sourceName, boundariesText) = row else {
            throw WorkoutStoreError.invalidData(path: path, reason: "zone configuration \(id) is missing")
        }
        guard let type = QuantityType(rawValue: UInt8(clamping: typeValue)),
            let source = WorkoutZoneSource(rawValue: sourceName), let boundaries = Self.boundaries(boundariesText)
        else {
            throw WorkoutStoreError.invalidData(path: path, reason: "zone configuration \(id) is not one this build knows")
        }
        let configuration = try WorkoutZoneConfiguration(quantityType: type, boundaryValues: boundaries, source: source)
        configurationsByID[id] = configuration
        return configuration
    }

    /// `[120,140,155,170]`: shortest round-trip decimals, so equal boundaries give equal text.
    static func boundariesText(_ values: [Double]) -> String {
        JSONValue.array(values.map(JSONValue.number)).serialized
    }

    static func boundaries(_ text: String) -> [Double]? {
        guard let array = (try? JSONValue(parsing: text))?.arrayValue else { return nil }
        let values = array.compactMap(\.doubleValue)
        return values.count == array.count ? values : nil
    }
}

extension Duration {
    /// Whole nanoseconds, truncated toward zero: the resolution the store keeps (the monotonic
    /// clock's and the traces'). Clamped to `Int64`'s range (about ±292 years) rather than trapping.
    var nanoseconds: Int64 { clampedNanoseconds }
}
