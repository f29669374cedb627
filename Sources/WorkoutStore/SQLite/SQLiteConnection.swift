import CSQLite
import Foundation

/// One SQLite connection: the only owner of its `sqlite3*`, closed in `deinit`.
///
/// Opened in SQLite's multi-thread mode (`SQLITE_OPEN_NOMUTEX`): a connection, and its statements,
/// must be used by one thread at a time. It is closed with `sqlite3_close_v2`, which SQLite defers
/// until every statement is finalized; closing the last connection to a file checkpoints its WAL
/// and deletes it.
final class SQLiteConnection: StoreDatabase {
    let handle: OpaquePointer
    /// The file name as given (`:memory:` for an in-memory database).
    let path: String
    private var statementCache: [String: SQLiteStatement] = [:]

    /// How a connection opens its file.
    enum Access {
        /// Read and write; with `create`, the file is created when missing.
        case readWrite(create: Bool)
        /// Only read; a missing file is an error.
        case readOnly
        /// Only read, as a file nothing changes while it is open (`immutable=1`): no locks, and
        /// nothing (no `-shm`) is made beside it. Only sound while no other connection writes.
        case immutable
    }

    /// Opens (and, with `.readWrite(create: true)`, creates) the database at `path`. The
    /// corresponding C function is `sqlite3_open_v2`.
    init(path: String, access: Access = .readWrite(create: true)) throws(SQLiteError) {
        var connection: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX
        var name = path
        switch access {
        case .readWrite(let create): flags |= SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .immutable:
            flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            // A URI file name: the characters that end a URI's path are escaped.
            name = "file:" + path.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "?", with: "%3f")
                .replacingOccurrences(of: "#", with: "%23") + "?immutable=1"
        }
        let result = sqlite3_open_v2(name, &connection, flags, nil)
        guard result == SQLITE_OK, let connection else {
            let error = SQLiteError(result, connection: connection)
            sqlite3_close_v2(connection)
            throw error
        }
        sqlite3_extended_result_codes(connection, 1)
        self.handle = connection
        self.path = path
    }

    deinit {
        statementCache.removeAll()  // finalizes the cached statements first
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements without results. The corresponding C function is `sqlite3_exec`.
    func execute(_ sql: String) throws(SQLiteError) {
        let result = sqlite3_exec(handle, sql, nil, nil, nil)
        guard result == SQLITE_OK else { throw SQLiteError(result, connection: handle, sql: sql) }
    }

    /// Compiles one statement. The corresponding C function is `sqlite3_prepare_v3`.
    func prepare(_ sql: String, persistent: Bool = false) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let result = sqlite3_prepare_v3(handle, sql, -1, flags, &statement, nil)
        guard result == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw SQLiteError(result, connection: handle, sql: sql)
        }
        return SQLiteStatement(handle: statement, sql: sql)
    }

    /// A prepared statement for `sql`, compiled once per connection and reused: the way to run the
    /// same insert for every row of a batch.
    func statement(_ sql: String) throws(SQLiteError) -> any StoreStatement {
        if let cached = statementCache[sql] {
            cached.reset()
            return cached
        }
        let statement = try prepare(sql, persistent: true)
        statementCache[sql] = statement
        return statement
    }

    /// Runs `body` in one transaction (`BEGIN IMMEDIATE`, so a writer waits for the lock up front
    /// rather than failing half-way): committed when it returns, rolled back when it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        let value: T
        do {
            value = try body()
            try execute("COMMIT")
        } catch {
            // After some errors (SQLITE_FULL, SQLITE_IOERR) SQLite has already rolled back.
            if !isAutocommit { try? execute("ROLLBACK") }
            throw error
        }
        return value
    }

    /// Whether no transaction is open. The corresponding C function is `sqlite3_get_autocommit`.
    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// The rowid of the latest insert. The corresponding C function is `sqlite3_last_insert_rowid`.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the latest statement. The corresponding C function is `sqlite3_changes64`.
    var changes: Int64 { sqlite3_changes64(handle) }

    /// Whether the main database is read-only (a write-protected file opens read-only). The
    /// corresponding C function is `sqlite3_db_readonly`.
    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// How long a statement waits for another connection's lock before failing with `busy`. The
    /// corresponding C function is `sqlite3_busy_timeout`.
    func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// `PRAGMA user_version`: the schema version the migrations keep.
    var userVersion: Int64 {
        get throws(SQLiteError) {
            let statement = try prepare("PRAGMA user_version")
            guard try statement.step() else { return 0 }
            return statement.int64(0)
        }
    }

    func setUserVersion(_ version: Int64) throws(SQLiteError) {
        try execute("PRAGMA user_version = \(version)")
    }

    /// The single value a query such as `PRAGMA journal_mode = WAL` answers, as text.
    func scalarText(_ sql: String) throws(SQLiteError) -> String? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.optionalText(0)
    }

    var dialect: StoreDialect { .sqlite }

    /// The same prepared insert for each row.
    func insertRows(into table: String, columns: [String], rows: [[(any StoreValue)?]]) throws {
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let statement = try statement("INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(marks))")
        for row in rows { try statement.run(arguments: row) }
    }
}
