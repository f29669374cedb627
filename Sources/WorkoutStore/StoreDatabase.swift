import PostgreSQL

/// The database under a `WorkoutStore`: SQLite (`SQLiteConnection`, the embedded default) or
/// PostgreSQL (`PostgreSQLDatabase`, a store shared by many bridges). The store's logic is written
/// once against this protocol, in the SQL both understand; the few places where they differ ask
/// the `dialect` (DESIGN.md §3 "Storage", "One store, two databases").
///
/// Statements use SQLite's placeholders (`?`, or `?N` for a value used more than once); the
/// PostgreSQL side numbers them `$N`. Values are `StoreValue`s (integers, doubles, text, arrays of
/// fixed-width numbers stored as little-endian bytes) or nil for NULL.
protocol StoreDatabase: AnyObject {
    var dialect: StoreDialect { get }
    /// A statement for `sql`, ready to run (prepared once per connection where the database can).
    func statement(_ sql: String) throws -> any StoreStatement
    /// Runs statements without parameters or results.
    func execute(_ sql: String) throws
    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T
    /// Rows changed by the latest statement.
    var changes: Int64 { get }
    /// The schema version the migrations keep.
    var userVersion: Int64 { get throws }
    /// Whether the database only reads.
    var isReadOnly: Bool { get }
    /// Writes `rows` of `columns` into `table` in one go: `COPY` on PostgreSQL, the same prepared
    /// insert for each row on SQLite. The caller holds a transaction.
    func insertRows(into table: String, columns: [String], rows: [[(any StoreValue)?]]) throws
}

/// What differs between the two databases' SQL.
enum StoreDialect: Sendable, Hashable {
    case sqlite, postgreSQL

    /// Whether the text `expression` is one of the list `placeholder` holds (`list(_:)`): a
    /// search of the list for it between separators, in each database's words.
    func isListed(_ expression: String, in placeholder: String) -> String {
        switch self {
        case .sqlite: "instr(\(placeholder), char(31) || \(expression) || char(31)) > 0"
        case .postgreSQL: "strpos(\(placeholder), chr(31) || \(expression) || chr(31)) > 0"
        }
    }

    /// `texts` as one text for `isListed`, each between unit separators (U+001F, a control
    /// character, which no athlete's name holds).
    static func list(_ texts: [String]) -> String {
        "\u{1F}" + texts.map { $0 + "\u{1F}" }.joined()
    }
}

/// One statement of a `StoreDatabase`.
protocol StoreStatement: AnyObject {
    /// Runs the statement with `arguments` for its placeholders, to the end.
    func run(arguments: [(any StoreValue)?]) throws
    /// Runs it and calls `body` for each row.
    func forEachRow(arguments: [(any StoreValue)?], body: (any StoreRow) throws -> Void) throws
    /// Runs it and maps its first row; nil when there is none.
    func firstRow<T>(arguments: [(any StoreValue)?], map: (any StoreRow) throws -> T) throws -> T?
}

extension StoreStatement {
    func run(_ arguments: (any StoreValue)?...) throws { try run(arguments: arguments) }

    func forEachRow(_ arguments: (any StoreValue)?..., body: (any StoreRow) throws -> Void) throws {
        try forEachRow(arguments: arguments, body: body)
    }

    func firstRow<T>(_ arguments: (any StoreValue)?..., map: (any StoreRow) throws -> T) throws -> T? {
        try firstRow(arguments: arguments, map: map)
    }
}

/// One row of a result, its columns read by 0-based index. A value of another type reads as
/// SQLite converts it (a NULL as 0 or "", text as the number it starts with).
protocol StoreRow {
    func isNull(_ column: Int32) -> Bool
    func int64(_ column: Int32) -> Int64
    func double(_ column: Int32) -> Double
    func optionalText(_ column: Int32) -> String?
    /// A BLOB of little-endian fixed-width numbers; nil when its length is not a multiple of the
    /// element size (a NULL reads as empty).
    func blob<Element: StoreBlobElement>(_ column: Int32, of type: Element.Type) -> [Element]?
}

extension StoreRow {
    func int(_ column: Int32) -> Int { Int(int64(column)) }
    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
    func optionalInt(_ column: Int32) -> Int? { isNull(column) ? nil : int(column) }
    func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }
    func text(_ column: Int32) -> String { optionalText(column) ?? "" }
    func blob<Element: StoreBlobElement>(_ column: Int32) -> [Element]? { blob(column, of: Element.self) }
}

/// A value for a statement's placeholder, on either database.
protocol StoreValue {
    func bind(to statement: SQLiteStatement, at index: Int32) throws(SQLiteError)
    var postgreSQLValue: PostgreSQLValue { get }
}

extension Int64: StoreValue {
    func bind(to statement: SQLiteStatement, at index: Int32) throws(SQLiteError) { try statement.bind(self, at: index) }
    var postgreSQLValue: PostgreSQLValue { .int64(self) }
}

extension Int: StoreValue {
    func bind(to statement: SQLiteStatement, at index: Int32) throws(SQLiteError) { try statement.bind(Int64(self), at: index) }
    var postgreSQLValue: PostgreSQLValue { .int64(Int64(self)) }
}

extension Double: StoreValue {
    func bind(to statement: SQLiteStatement, at index: Int32) throws(SQLiteError) { try statement.bind(self, at: index) }
    /// NaN as NULL, as SQLite stores it.
    var postgreSQLValue: PostgreSQLValue { isNaN ? .null : .double(self) }
}

extension String: StoreValue {
    func bind(to statement: SQLiteStatement, at index: Int32) throws(SQLiteError) { try statement.bind(self, at: index) }
    var postgreSQLValue: PostgreSQLValue { .text(self) }
}

extension Array: StoreValue where Element: StoreBlobElement {
    func bind(to statement: SQLiteStatement, at index: Int32) throws(SQLiteError) {
        try statement.bind(blob: self, at: index)
    }

    /// The numbers' little-endian bytes, as a SQLite BLOB holds them.
    var postgreSQLValue: PostgreSQLValue {
        #if _endian(big)
            let values = map(\.littleEndianRepresentation)
        #else
            let values = self
        #endif
        return .bytea(values.withUnsafeBytes { [UInt8]($0) })
    }
}

/// A number stored in BLOBs as its little-endian bytes.
protocol StoreBlobElement: BitwiseCopyable {
    /// The value whose in-memory bytes are this value's little-endian bytes.
    var littleEndianRepresentation: Self { get }
    init(littleEndianRepresentation: Self)
}

extension StoreBlobElement {
    /// `bytes` (a BLOB's) as little-endian numbers; nil when their count is not a multiple of the
    /// element size.
    static func array(fromLittleEndian bytes: UnsafeRawBufferPointer) -> [Self]? {
        let stride = MemoryLayout<Self>.stride
        guard bytes.count % stride == 0 else { return nil }
        guard let base = bytes.baseAddress, bytes.count > 0 else { return [] }
        let count = bytes.count / stride
        let values = [Self](unsafeUninitializedCapacity: count) { buffer, initialized in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(start: base, count: bytes.count))
            initialized = count
        }
        #if _endian(big)
            return values.map { Self(littleEndianRepresentation: $0) }
        #else
            return values
        #endif
    }
}

extension UInt8: StoreBlobElement {
    var littleEndianRepresentation: UInt8 { self }
    init(littleEndianRepresentation value: UInt8) { self = value }
}

extension UInt16: StoreBlobElement {
    var littleEndianRepresentation: UInt16 { littleEndian }
    init(littleEndianRepresentation value: UInt16) { self.init(littleEndian: value) }
}

extension Int64: StoreBlobElement {
    var littleEndianRepresentation: Int64 { littleEndian }
    init(littleEndianRepresentation value: Int64) { self.init(littleEndian: value) }
}

extension Double: StoreBlobElement {
    var littleEndianRepresentation: Double { Double(bitPattern: bitPattern.littleEndian) }
    init(littleEndianRepresentation value: Double) { self.init(bitPattern: UInt64(littleEndian: value.bitPattern)) }
}
