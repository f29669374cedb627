/// An error from PostgreSQL or from libpq: what failed, the server's SQLSTATE when it sent one,
/// its message, and the statement that failed.
public struct PostgreSQLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed.
    public enum Kind: Sendable, Hashable {
        /// The connection could not be made (a bad conninfo or URL, no server, refused, ...).
        case connectionFailed
        /// The server refused a statement; `sqlState` says why.
        case queryFailed
        /// The connection broke while in use (the server stopped, the network went away); it
        /// cannot be used again.
        case connectionLost
        /// A value read from a row is not of the type asked for (or is NULL where one was needed).
        case valueMismatch
        /// A `copyIn` row with another number of values than columns; nothing of the copy is kept.
        case copyRowMismatch
    }

    /// A five-character SQLSTATE code (PostgreSQL documentation, appendix A), with Swift names
    /// for those that callers act on.
    public struct SQLState: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// `23505 unique_violation`.
        public static let uniqueViolation = SQLState(rawValue: "23505")
        /// `23503 foreign_key_violation`.
        public static let foreignKeyViolation = SQLState(rawValue: "23503")
        /// `23502 not_null_violation`.
        public static let notNullViolation = SQLState(rawValue: "23502")
        /// `23514 check_violation`.
        public static let checkViolation = SQLState(rawValue: "23514")
        /// `40001 serialization_failure`: a serializable transaction lost a race; run it again.
        public static let serializationFailure = SQLState(rawValue: "40001")
        /// `40P01 deadlock_detected`: this transaction was chosen to break a deadlock; run it again.
        public static let deadlockDetected = SQLState(rawValue: "40P01")
        /// `55P03 lock_not_available`: a lock was not granted within `lock_timeout` (or `NOWAIT`).
        public static let lockNotAvailable = SQLState(rawValue: "55P03")
        /// `42P01 undefined_table`.
        public static let undefinedTable = SQLState(rawValue: "42P01")
        /// `42601 syntax_error`.
        public static let syntaxError = SQLState(rawValue: "42601")
        /// `22P03 invalid_binary_representation`: a binary `COPY` value of the wrong type for its column.
        public static let invalidBinaryRepresentation = SQLState(rawValue: "22P03")
        /// `25P02 in_failed_sql_transaction`: a statement after an error in the same transaction.
        public static let inFailedTransaction = SQLState(rawValue: "25P02")
        /// `57P01 admin_shutdown`: the server is shutting down.
        public static let adminShutdown = SQLState(rawValue: "57P01")
        /// `3D000 invalid_catalog_name`: the database does not exist.
        public static let invalidCatalogName = SQLState(rawValue: "3D000")

        public var description: String { rawValue }
    }

    public let kind: Kind
    /// The server's SQLSTATE; nil when the server sent none (libpq's own errors, such as a lost connection).
    public let sqlState: SQLState?
    /// The server's primary message, or libpq's.
    public let message: String
    /// The server's detail (`Key (id)=(1) already exists.`), when it sent one.
    public let detail: String?
    /// The statement that failed, when there was one.
    public let sql: String?

    public init(kind: Kind, sqlState: SQLState? = nil, message: String, detail: String? = nil, sql: String? = nil) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.sql = sql
    }

    /// A unique constraint refused the row (`23505`).
    public var isUniqueViolation: Bool { sqlState == .uniqueViolation }
    /// A transaction to run again: a serialization failure (`40001`) or a deadlock (`40P01`).
    public var isSerializationFailure: Bool { sqlState == .serializationFailure || sqlState == .deadlockDetected }
    /// The connection is gone: made again, not reused.
    public var isConnectionLost: Bool { kind == .connectionLost }

    /// The kind, SQLSTATE, message and detail, and the statement's first 80 characters.
    public var description: String {
        var text: String
        switch kind {
        case .connectionFailed: text = "PostgreSQL connection failed: "
        case .queryFailed: text = "PostgreSQL statement failed: "
        case .connectionLost: text = "PostgreSQL connection lost: "
        case .valueMismatch: text = "PostgreSQL value mismatch: "
        case .copyRowMismatch: text = "PostgreSQL COPY row mismatch: "
        }
        text += message
        if let sqlState { text += " (SQLSTATE \(sqlState))" }
        if let detail { text += " " + detail }
        if let sql { text += " in: " + Self.excerpt(sql) }
        return text
    }

    /// The statement's first 80 characters, its line breaks as spaces (a migration runs to kilobytes).
    static func excerpt(_ sql: String) -> String {
        let flat = sql.drop { $0.isWhitespace }.map { $0.isNewline ? " " : $0 }
        return flat.count > 80 ? String(flat.prefix(80)) + " …" : String(flat)
    }
}
