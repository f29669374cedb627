import PostgreSQL

/// A PostgreSQL database as a `StoreDatabase`: the store's statements, written with SQLite's `?`
/// placeholders, run through libpq with `$N` ones; values go as typed parameters and rows come
/// back as text, read as SQLite would read them.
final class PostgreSQLDatabase: StoreDatabase {
    let connection: PostgreSQLConnection
    /// The store's statements translated once each.
    private var translated: [String: String] = [:]

    init(_ connection: PostgreSQLConnection) {
        self.connection = connection
    }

    var dialect: StoreDialect { .postgreSQL }

    func statement(_ sql: String) throws -> any StoreStatement {
        if let known = translated[sql] { return Statement(database: self, sql: known) }
        let postgreSQL = Self.numberingPlaceholders(sql)
        translated[sql] = postgreSQL
        return Statement(database: self, sql: postgreSQL)
    }

    func execute(_ sql: String) throws { try connection.execute(sql) }

    func transaction<T>(_ body: () throws -> T) throws -> T {
        try connection.transaction { _ in try body() }
    }

    var changes: Int64 { connection.affectedRows }

    var userVersion: Int64 {
        get throws { try connection.query("SELECT version FROM sensorbridge_schema WHERE only_row = 1").first?.int64(0) ?? 0 }
    }

    var isReadOnly: Bool { false }

    /// Binary `COPY`: each value must be of its column's type (`bigint` for integers).
    func insertRows(into table: String, columns: [String], rows: [[(any StoreValue)?]]) throws {
        try connection.copyIn(table: table, columns: columns, rows: rows.lazy.map { $0.map { $0?.postgreSQLValue ?? .null } })
    }

    /// `sql` with SQLite's placeholders as PostgreSQL's: `?N` as `$N`, and each bare `?` as the
    /// next number. Quoted text, quoted names and comments are left alone.
    static func numberingPlaceholders(_ sql: String) -> String {
        var result = ""
        var next = 1
        var quote: Character?
        var inComment = false
        var characters = sql.makeIterator()
        var pending = characters.next()
        while let character = pending {
            pending = characters.next()
            if inComment {
                if character == "\n" { inComment = false }
                result.append(character)
            } else if let open = quote {
                if character == open { quote = nil }
                result.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                result.append(character)
            } else if character == "-" && pending == "-" {
                inComment = true
                result.append(character)
            } else if character == "?" {
                var digits = ""
                while let digit = pending, digit.isASCII, digit.isNumber {
                    digits.append(digit)
                    pending = characters.next()
                }
                if digits.isEmpty {
                    digits = String(next)
                    next += 1
                }
                result += "$" + digits
            } else {
                result.append(character)
            }
        }
        return result
    }

    final class Statement: StoreStatement {
        let database: PostgreSQLDatabase
        let sql: String

        init(database: PostgreSQLDatabase, sql: String) {
            self.database = database
            self.sql = sql
        }

        private func query(_ arguments: [(any StoreValue)?]) throws -> [PostgreSQLRow] {
            try database.connection.query(sql, arguments.map { $0?.postgreSQLValue ?? .null })
        }

        func run(arguments: [(any StoreValue)?]) throws { _ = try query(arguments) }

        func forEachRow(arguments: [(any StoreValue)?], body: (any StoreRow) throws -> Void) throws {
            for row in try query(arguments) { try body(Row(row)) }
        }

        func firstRow<T>(arguments: [(any StoreValue)?], map: (any StoreRow) throws -> T) throws -> T? {
            try query(arguments).first.map { try map(Row($0)) }
        }
    }

    /// A row as text, read as SQLite reads a value of another type: a NULL or text that is not a
    /// number as 0, `t`/`f` (a boolean) as 1/0, a number with a fraction as an integer truncated.
    struct Row: StoreRow {
        let row: PostgreSQLRow

        init(_ row: PostgreSQLRow) { self.row = row }

        func isNull(_ column: Int32) -> Bool { row.isNull(Int(column)) }

        func int64(_ column: Int32) -> Int64 {
            guard let text = row.fields[Int(column)] else { return 0 }
            if let value = Int64(text) { return value }
            switch text {
            case "t": return 1
            case "f": return 0
            default: return Double(text).flatMap { Int64(exactly: $0.rounded(.towardZero)) } ?? 0
            }
        }

        func double(_ column: Int32) -> Double {
            (try? row.optionalDouble(Int(column))).flatMap { $0 } ?? Double(int64(column))
        }

        func optionalText(_ column: Int32) -> String? { row.fields[Int(column)] }

        func blob<Element: StoreBlobElement>(_ column: Int32, of type: Element.Type) -> [Element]? {
            guard let bytes = (try? row.optionalBytes(Int(column))).flatMap({ $0 }) else { return isNull(column) ? [] : nil }
            return bytes.withUnsafeBytes { Element.array(fromLittleEndian: $0) }
        }
    }
}
