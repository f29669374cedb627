import CSQLite

/// One prepared statement: the only owner of its `sqlite3_stmt*`, finalized in `deinit`. It holds
/// no reference to its connection (the connection's statement cache holds it): a connection closed
/// with `sqlite3_close_v2` stays open inside SQLite until its last statement is finalized.
///
/// Bind with `bind(_:)` (or `run(_:)`, which also steps to the end), then `step()` through the rows
/// and read columns by 0-based index. Arguments are bound 1-based in order, as `?` placeholders
/// appear in the SQL.
final class SQLiteStatement: StoreStatement, StoreRow {
    private let handle: OpaquePointer
    let sql: String

    init(handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
    }

    /// The statement's connection. The corresponding C function is `sqlite3_db_handle`.
    private var connectionHandle: OpaquePointer? { sqlite3_db_handle(handle) }

    deinit { sqlite3_finalize(handle) }

    private func check(_ result: Int32) throws(SQLiteError) {
        guard result == SQLITE_OK else { throw SQLiteError(result, connection: connectionHandle, sql: sql) }
    }

    // MARK: Binding

    /// Resets the statement and binds `arguments` to its placeholders in order.
    func bind(_ arguments: [(any StoreValue)?]) throws(SQLiteError) {
        reset()
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            if let argument {
                try argument.bind(to: self, at: index)
            } else {
                try check(sqlite3_bind_null(handle, index))
            }
        }
    }

    func bindNull(at index: Int32) throws(SQLiteError) { try check(sqlite3_bind_null(handle, index)) }
    func bind(_ value: Int64, at index: Int32) throws(SQLiteError) { try check(sqlite3_bind_int64(handle, index, value)) }
    /// NaN binds as NULL: SQLite has no NaN.
    func bind(_ value: Double, at index: Int32) throws(SQLiteError) { try check(sqlite3_bind_double(handle, index, value)) }

    func bind(_ value: String, at index: Int32) throws(SQLiteError) {
        var text = value
        let result = text.withUTF8 { utf8 -> Int32 in
            guard let base = utf8.baseAddress else { return csqlite_bind_text_transient(handle, index, "", 0) }
            return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                csqlite_bind_text_transient(handle, index, $0, Int32(utf8.count))
            }
        }
        try check(result)
    }

    /// Binds fixed-width numbers as one little-endian BLOB (copied by SQLite).
    func bind<Element: StoreBlobElement>(blob values: [Element], at index: Int32) throws(SQLiteError) {
        #if _endian(big)
            let values = values.map(\.littleEndianRepresentation)
        #endif
        let result = values.withUnsafeBytes { bytes -> Int32 in
            // A null pointer would bind NULL, not an empty BLOB.
            guard let base = bytes.baseAddress, bytes.count > 0 else { return sqlite3_bind_zeroblob(handle, index, 0) }
            return csqlite_bind_blob_transient(handle, index, base, Int32(bytes.count))
        }
        try check(result)
    }

    // MARK: Stepping

    /// Advances to the next row: true when there is one, false when the statement is done. The
    /// corresponding C function is `sqlite3_step`.
    @discardableResult
    func step() throws(SQLiteError) -> Bool {
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = SQLiteError(result, connection: connectionHandle, sql: sql)
            reset()
            throw error
        }
    }

    /// Binds `arguments`, steps to the end, and resets (so the statement holds no lock).
    func run(arguments: [(any StoreValue)?]) throws {
        try bind(arguments)
        while try step() {}
        reset()
    }

    /// Binds `arguments` and calls `body` for each row; resets afterwards.
    func forEachRow(arguments: [(any StoreValue)?], body: (any StoreRow) throws -> Void) throws {
        try bind(arguments)
        defer { reset() }
        while try step() { try body(self) }
    }

    /// Binds `arguments` and maps the first row, or returns nil when there is none; resets afterwards.
    func firstRow<T>(arguments: [(any StoreValue)?], map: (any StoreRow) throws -> T) throws -> T? {
        try bind(arguments)
        defer { reset() }
        return try step() ? map(self) : nil
    }

    /// Back to the start, keeping the bindings. The corresponding C function is `sqlite3_reset`
    /// (whose result repeats the latest step's error, already thrown).
    func reset() { sqlite3_reset(handle) }

    // MARK: Columns (0-based)

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    func optionalText(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    func blob<Element: StoreBlobElement>(_ column: Int32, of type: Element.Type) -> [Element]? {
        let pointer = sqlite3_column_blob(handle, column)
        let byteCount = Int(sqlite3_column_bytes(handle, column))
        return Element.array(fromLittleEndian: UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : byteCount))
    }
}
