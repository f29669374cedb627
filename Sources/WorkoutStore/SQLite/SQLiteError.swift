import CSQLite

/// An error reported by SQLite: its result code, its message, and the statement that failed.
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A primary result code (the low byte of an extended one), with Swift names for those that
    /// callers act on. The corresponding C constants are `SQLITE_BUSY`, `SQLITE_CORRUPT`, ...
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: Int32

        /// Keeps the primary code of an extended result code.
        public init(rawValue: Int32) { self.rawValue = rawValue & 0xFF }

        /// `SQLITE_ERROR`: a generic error, such as an SQL syntax error or a missing table.
        public static let error = Code(rawValue: SQLITE_ERROR)
        /// `SQLITE_PERM`: the access mode for a newly created database could not be provided.
        public static let permission = Code(rawValue: SQLITE_PERM)
        /// `SQLITE_ABORT`: the operation was aborted (`RAISE(ABORT, ...)` in a trigger).
        public static let abort = Code(rawValue: SQLITE_ABORT)
        /// `SQLITE_BUSY`: another connection holds the lock for longer than the busy timeout.
        public static let busy = Code(rawValue: SQLITE_BUSY)
        /// `SQLITE_LOCKED`: a conflict within the same connection.
        public static let locked = Code(rawValue: SQLITE_LOCKED)
        /// `SQLITE_NOMEM`.
        public static let noMemory = Code(rawValue: SQLITE_NOMEM)
        /// `SQLITE_READONLY`: a write to a database opened (or only openable) for reading.
        public static let readOnly = Code(rawValue: SQLITE_READONLY)
        /// `SQLITE_IOERR`: the operating system reported an I/O error.
        public static let ioError = Code(rawValue: SQLITE_IOERR)
        /// `SQLITE_CORRUPT`: the database file is damaged.
        public static let corrupt = Code(rawValue: SQLITE_CORRUPT)
        /// `SQLITE_FULL`: the disk is full (or `max_page_count` was reached).
        public static let full = Code(rawValue: SQLITE_FULL)
        /// `SQLITE_CANTOPEN`: the file (or its folder) could not be opened or created.
        public static let cannotOpen = Code(rawValue: SQLITE_CANTOPEN)
        /// `SQLITE_CONSTRAINT`: a NOT NULL, CHECK, UNIQUE or FOREIGN KEY constraint failed.
        public static let constraint = Code(rawValue: SQLITE_CONSTRAINT)
        /// `SQLITE_MISMATCH`: a value of the wrong type for a STRICT column.
        public static let mismatch = Code(rawValue: SQLITE_MISMATCH)
        /// `SQLITE_NOTADB`: the file is not a SQLite database.
        public static let notADatabase = Code(rawValue: SQLITE_NOTADB)

        /// SQLite's English text for the code (`database is locked`). The corresponding C function is `sqlite3_errstr`.
        public var description: String { String(cString: sqlite3_errstr(rawValue)) }
    }

    /// The primary result code.
    public let code: Code
    /// The extended result code (`SQLITE_IOERR_WRITE`, `SQLITE_CONSTRAINT_CHECK`, ...).
    public let extendedCode: Int32
    /// SQLite's message: `sqlite3_errmsg` of the connection, or the code's text when there was none.
    public let message: String
    /// The statement that failed, when there was one.
    public let sql: String?
    /// The `errno` of the failing system call (`sqlite3_system_errno`), 0 when there was none.
    public let systemErrno: Int32

    public init(extendedCode: Int32, message: String, sql: String? = nil, systemErrno: Int32 = 0) {
        self.code = Code(rawValue: extendedCode)
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
        self.systemErrno = systemErrno
    }

    /// The error a connection reports for `resultCode`.
    init(_ resultCode: Int32, connection: OpaquePointer?, sql: String? = nil) {
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? resultCode
        // The connection's code is the latest error's; it matches `resultCode` when that is the latest.
        let code = Code(rawValue: extended) == Code(rawValue: resultCode) ? extended : resultCode
        let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(resultCode))
        self.init(
            extendedCode: code, message: message, sql: sql,
            systemErrno: connection.map { sqlite3_system_errno($0) } ?? 0)
    }

    /// The message and code, and the start of the statement: its first line, at most 100
    /// characters (a migration's statement runs to kilobytes).
    public var description: String {
        "\(message) (SQLite result code \(extendedCode))" + (sql.map { " in: \(Self.excerpt($0))" } ?? "")
    }

    static func excerpt(_ sql: String) -> String {
        let trimmed = sql.drop { $0.isWhitespace }
        let line = trimmed.prefix { $0 != "\n" }
        guard line.count > 100 || line.endIndex != trimmed.endIndex else { return String(line) }
        return String(line.prefix(100)) + " …"
    }
}
