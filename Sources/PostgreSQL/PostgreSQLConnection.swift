import CPostgreSQL
import Foundation

/// One connection to a PostgreSQL server: the only owner of its `PGconn*`, closed in `deinit`.
///
/// libpq allows one thread at a time on a connection, and so does this class: it is not
/// `Sendable`; a thread of work opens its own (as a `SQLiteConnection` is used). Every call
/// blocks until the server has answered. Notices (`NOTICE: ... skipping`) are dropped, not
/// printed. Unsafe pointers stay inside this module; no API takes or returns one.
public final class PostgreSQLConnection {
    private let handle: OpaquePointer

    /// Connects with `conninfo`: `key=value` pairs (`host=/tmp/pg port=5432 dbname=rides`) or a
    /// `postgresql://USER@HOST:PORT/DB?...` URL. The corresponding C function is `PQconnectdb`.
    public init(_ conninfo: String) throws(PostgreSQLError) {
        guard let connection = PQconnectdb(conninfo) else {
            throw PostgreSQLError(kind: .connectionFailed, message: "libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.message(of: connection)
            PQfinish(connection)
            throw PostgreSQLError(kind: .connectionFailed, message: message)
        }
        cpq_ignore_notices(connection)
        handle = connection
    }

    deinit { PQfinish(handle) }

    /// The options `conninfo` sets (`host`, `port`, `dbname`, `user`, `password`, ...), as libpq
    /// reads them, without connecting: for checking a store's address before anything waits, and
    /// for naming it without its password. The corresponding C function is `PQconninfoParse`.
    ///
    /// - Throws: `.connectionFailed` with libpq's reason for a conninfo or URL it cannot read.
    public static func options(of conninfo: String) throws(PostgreSQLError) -> [String: String] {
        var message: UnsafeMutablePointer<CChar>?
        guard let parsed = PQconninfoParse(conninfo, &message) else {
            let reason = message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "out of memory"
            if let message { PQfreemem(message) }
            throw PostgreSQLError(kind: .connectionFailed, message: reason)
        }
        defer { PQconninfoFree(parsed) }
        var options: [String: String] = [:]
        var option = parsed
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { options[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        return options
    }

    /// libpq's latest error text for `connection`, without its trailing line break. The
    /// corresponding C function is `PQerrorMessage`.
    static func message(of connection: OpaquePointer) -> String {
        guard let text = PQerrorMessage(connection) else { return "unknown error" }
        let message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
        return message.isEmpty ? "unknown error" : message
    }

    /// Whether the connection is up (false once it has been lost). The corresponding C function is `PQstatus`.
    public var isConnected: Bool { PQstatus(handle) == CONNECTION_OK }

    /// The server's version as a number, `150018` for 15.18. The corresponding C function is `PQserverVersion`.
    public var serverVersion: Int { Int(PQserverVersion(handle)) }

    /// The server's version as it says it (`15.18 (Debian 15.18-0+deb12u1)`). The corresponding C
    /// function is `PQparameterStatus`.
    public var serverVersionText: String {
        PQparameterStatus(handle, "server_version").map { String(cString: $0) } ?? ""
    }

    /// Whether a transaction is open (and whether it has failed). The corresponding C function is
    /// `PQtransactionStatus`.
    public var transactionState: TransactionState {
        switch PQtransactionStatus(handle) {
        case PQTRANS_IDLE: .idle
        case PQTRANS_INTRANS, PQTRANS_ACTIVE: .open
        case PQTRANS_INERROR: .failed
        default: .unknown
        }
    }

    public enum TransactionState: Sendable, Hashable {
        /// No transaction is open.
        case idle
        /// A transaction is open.
        case open
        /// A statement failed in the open transaction: only `ROLLBACK` is accepted.
        case failed
        /// The connection is lost.
        case unknown
    }

    // MARK: Statements

    /// Runs one or more statements without parameters, their rows (if any) left unread. The
    /// corresponding C function is `PQexec`.
    public func execute(_ sql: String) throws(PostgreSQLError) {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql: sql, expecting: [PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY])
    }

    /// Runs one statement with `parameters` for its `$1`, `$2`, ... and returns its rows (none for
    /// a statement without any). The corresponding C function is `PQexecParams`.
    @discardableResult
    public func query(_ sql: String, _ parameters: [PostgreSQLValue] = []) throws(PostgreSQLError) -> [PostgreSQLRow] {
        guard parameters.count <= 65535 else {
            throw PostgreSQLError(kind: .queryFailed, message: "\(parameters.count) parameters: more than 65535", sql: sql)
        }
        let types = parameters.map(\.typeOID)
        let formats = parameters.map { value -> Int32 in if case .bytea = value { 1 } else { 0 } }
        let texts = parameters.map(\.textForm)
        let result = Self.withParameterPointers(parameters, texts) { values, lengths in
            PQexecParams(handle, sql, Int32(parameters.count), types, values, lengths, formats, 0)
        }
        defer { PQclear(result) }
        try check(result, sql: sql, expecting: [PGRES_COMMAND_OK, PGRES_TUPLES_OK])
        affectedRows = result.flatMap { Int64(String(cString: PQcmdTuples($0))) } ?? 0
        return Self.rows(of: result)
    }

    /// The rows the latest `query` inserted, updated, deleted or returned (0 for other
    /// commands). The corresponding C function is `PQcmdTuples`.
    public private(set) var affectedRows: Int64 = 0

    /// Calls `body` with the parameters' C values and lengths (a bytea's bytes, a text's
    /// NUL-terminated UTF-8, NULL for NULL), valid only during the call.
    private static func withParameterPointers<R>(
        _ parameters: [PostgreSQLValue], _ texts: [String?],
        _ body: ([UnsafePointer<CChar>?], [Int32]) -> R
    ) -> R {
        // Each value is copied into one buffer that lives through `body`; offsets point into it.
        var storage = [CChar]()
        var offsets = [Int?]()
        var lengths = [Int32]()
        for (value, text) in zip(parameters, texts) {
            switch value {
            case .null:
                offsets.append(nil)
                lengths.append(0)
            case .bytea(let bytes):
                offsets.append(storage.count)
                lengths.append(Int32(clamping: bytes.count))
                storage += bytes.map { CChar(bitPattern: $0) }
            default:
                let utf8 = (text ?? "").utf8
                offsets.append(storage.count)
                lengths.append(Int32(clamping: utf8.count))
                storage += utf8.map { CChar(bitPattern: $0) }
                storage.append(0)
            }
        }
        storage.append(0)  // never empty, so the base address is never nil
        return storage.withUnsafeBufferPointer { buffer in
            body(offsets.map { $0.map { buffer.baseAddress! + $0 } }, lengths)
        }
    }

    /// The rows of a successful result, copied out as text.
    private static func rows(of result: OpaquePointer?) -> [PostgreSQLRow] {
        guard let result, PQresultStatus(result) == PGRES_TUPLES_OK else { return [] }
        let columnCount = PQnfields(result)
        let columns = (0..<columnCount).map { PQfname(result, $0).map { String(cString: $0) } ?? "" }
        return (0..<PQntuples(result)).map { row in
            let fields = (0..<columnCount).map { column -> String? in
                guard PQgetisnull(result, row, column) == 0, let value = PQgetvalue(result, row, column) else { return nil }
                let length = Int(PQgetlength(result, row, column))
                return value.withMemoryRebound(to: UInt8.self, capacity: length) {
                    String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
                }
            }
            return PostgreSQLRow(columns: columns, fields: fields)
        }
    }

    /// Throws the error a result reports unless its status is one of `expected`.
    private func check(_ result: OpaquePointer?, sql: String?, expecting expected: [ExecStatusType]) throws(PostgreSQLError) {
        guard let result, expected.contains(PQresultStatus(result)) else { throw error(result, sql: sql) }
    }

    /// The error `result` (or, without one, the connection) reports: `connectionLost` once the
    /// connection is down, else `queryFailed` with the server's SQLSTATE, message and detail.
    private func error(_ result: OpaquePointer?, sql: String?) -> PostgreSQLError {
        let state = result.flatMap { cpq_result_sqlstate($0) }.map { PostgreSQLError.SQLState(rawValue: String(cString: $0)) }
        let message = result.flatMap { cpq_result_message($0) }.map { String(cString: $0) } ?? Self.message(of: handle)
        let detail = result.flatMap { cpq_result_detail($0) }.map { String(cString: $0) }
        // An error without SQLSTATE is libpq's own. When the server has gone, libpq may report it
        // ("server closed the connection unexpectedly") before marking the connection bad; reading
        // from the socket (`PQconsumeInput`, which fails at its end) settles which it is.
        if state == nil && PQstatus(handle) == CONNECTION_OK { _ = PQconsumeInput(handle) }
        let kind: PostgreSQLError.Kind = PQstatus(handle) == CONNECTION_OK ? .queryFailed : .connectionLost
        return PostgreSQLError(kind: kind, sqlState: state, message: message, detail: detail, sql: sql)
    }

    // MARK: Transactions

    /// Runs `body` in one transaction: `BEGIN`, then `COMMIT` when it returns, `ROLLBACK` when it
    /// throws (the error is rethrown). A statement that failed inside `body` whose error `body`
    /// caught leaves the transaction failed: it is rolled back and `inFailedTransaction` thrown,
    /// never committed in part. Transactions do not nest.
    public func transaction<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        guard transactionState == .idle else {
            throw PostgreSQLError(kind: .queryFailed, message: "a transaction is already open on this connection", sql: "BEGIN")
        }
        try execute("BEGIN")
        let value: T
        do {
            value = try body(self)
        } catch {
            if transactionState != .idle && transactionState != .unknown { try? execute("ROLLBACK") }
            throw error
        }
        if transactionState == .failed {
            try? execute("ROLLBACK")
            throw PostgreSQLError(
                kind: .queryFailed, sqlState: .inFailedTransaction,
                message: "a statement failed in the transaction: it was rolled back", sql: "COMMIT")
        }
        try execute("COMMIT")
        return value
    }

    // MARK: COPY

    /// Copies `rows` into `columns` of `table` with `COPY ... FROM STDIN`, sent in pieces of about
    /// 64 KiB as they are encoded; returns how many rows the server took. All or nothing: a row
    /// with the wrong number of values ends the copy (`copyRowMismatch`), a value the server
    /// refuses fails it (`queryFailed`), and none of its rows are kept. `table` and each column are
    /// quoted as one identifier each (so a table is found through `search_path`, and a name with a
    /// dot or a quote in it is that name). The corresponding C functions are
    /// `PQputCopyData`, `PQputCopyEnd` and `PQgetResult`.
    @discardableResult
    public func copyIn(
        table: String, columns: [String], rows: some Sequence<[PostgreSQLValue]>,
        format: PostgreSQLCopyEncoder.Format = .binary
    ) throws(PostgreSQLError) -> Int {
        let names = columns.map(Self.quoted).joined(separator: ", ")
        let sql = "COPY \(Self.quoted(table)) (\(names)) FROM STDIN WITH (FORMAT \(format == .binary ? "binary" : "text"))"
        let start = PQexec(handle, sql)
        defer { PQclear(start) }
        try check(start, sql: sql, expecting: [PGRES_COPY_IN])
        var encoder = PostgreSQLCopyEncoder(format: format)
        do throws(PostgreSQLError) {
            for row in rows {
                guard row.count == columns.count else {
                    throw PostgreSQLError(
                        kind: .copyRowMismatch, message: "a row of \(row.count) values for \(columns.count) columns", sql: sql)
                }
                try encoder.append(row: row)
                if encoder.bytes.count >= 65536 { try send(encoder.take(), sql: sql) }
            }
            encoder.finish()
            try send(encoder.take(), sql: sql)
        } catch {
            // Ends the copy with an error, so the server keeps none of it; its reply is ours to read.
            _ = PQputCopyEnd(handle, error.message)
            finishCommand()
            throw error
        }
        guard PQputCopyEnd(handle, nil) == 1 else { throw self.error(nil, sql: sql) }
        let end = PQgetResult(handle)
        defer {
            PQclear(end)
            finishCommand()
        }
        try check(end, sql: sql, expecting: [PGRES_COMMAND_OK])
        return Int(String(cString: PQcmdTuples(end))) ?? 0
    }

    /// Sends one piece of a copy. The corresponding C function is `PQputCopyData` (which, on a
    /// blocking connection, waits while the server is behind).
    private func send(_ bytes: [UInt8], sql: String) throws(PostgreSQLError) {
        guard !bytes.isEmpty else { return }
        let sent = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32(buffer.count)) }
        }
        guard sent == 1 else { throw error(nil, sql: sql) }
    }

    /// Reads and frees the results left of a command until libpq has none (it takes no new
    /// command before). The corresponding C function is `PQgetResult`.
    private func finishCommand() {
        while let result = PQgetResult(handle) { PQclear(result) }
    }

    /// `name` as a quoted identifier: in double quotes, each double quote doubled.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
