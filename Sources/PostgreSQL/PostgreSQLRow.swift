import CPostgreSQL
public import Foundation

/// One row of a query's result, copied out of libpq: each field as the text PostgreSQL sends
/// (text format), or nil for NULL. The accessors read a field as a Swift type and throw
/// `valueMismatch` when it is not one (a NULL where a value is needed, `abc` read as a number).
public struct PostgreSQLRow: Sendable {
    /// The result's column names, in order.
    public let columns: [String]
    /// Each field's text, nil for NULL.
    public let fields: [String?]

    public init(columns: [String], fields: [String?]) {
        self.columns = columns
        self.fields = fields
    }

    /// The index of the column named `name`; nil when there is none.
    public func index(of name: String) -> Int? { columns.firstIndex(of: name) }

    public func isNull(_ column: Int) -> Bool { fields[column] == nil }

    public func optionalString(_ column: Int) -> String? { fields[column] }

    public func string(_ column: Int) throws(PostgreSQLError) -> String {
        guard let text = fields[column] else { throw mismatch(column, "text") }
        return text
    }

    public func optionalInt64(_ column: Int) throws(PostgreSQLError) -> Int64? {
        guard let text = fields[column] else { return nil }
        guard let value = Int64(text) else { throw mismatch(column, "bigint") }
        return value
    }

    public func int64(_ column: Int) throws(PostgreSQLError) -> Int64 {
        guard let value = try optionalInt64(column) else { throw mismatch(column, "bigint") }
        return value
    }

    /// A `double precision` (or any number's) text, `NaN` and `±Infinity` included.
    public func optionalDouble(_ column: Int) throws(PostgreSQLError) -> Double? {
        guard let text = fields[column] else { return nil }
        switch text {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default:
            guard let value = Double(text) else { throw mismatch(column, "double precision") }
            return value
        }
    }

    public func double(_ column: Int) throws(PostgreSQLError) -> Double {
        guard let value = try optionalDouble(column) else { throw mismatch(column, "double precision") }
        return value
    }

    /// A `boolean`: PostgreSQL sends `t` or `f`.
    public func optionalBool(_ column: Int) throws(PostgreSQLError) -> Bool? {
        switch fields[column] {
        case nil: return nil
        case "t": return true
        case "f": return false
        default: throw mismatch(column, "boolean")
        }
    }

    public func bool(_ column: Int) throws(PostgreSQLError) -> Bool {
        guard let value = try optionalBool(column) else { throw mismatch(column, "boolean") }
        return value
    }

    /// A `bytea`'s bytes, from its text (`bytea_output` hex, `\x0001ff`, or escape). The
    /// corresponding C function is `PQunescapeBytea`.
    public func optionalBytes(_ column: Int) throws(PostgreSQLError) -> [UInt8]? {
        guard let text = fields[column] else { return nil }
        // Hex, the default output: decoded here, without a copy through libpq.
        let utf8 = text.utf8
        if utf8.starts(with: [0x5C, 0x78]) {  // \x
            guard let bytes = Self.hex(utf8.dropFirst(2)) else { throw mismatch(column, "bytea") }
            return bytes
        }
        var length = 0
        guard let unescaped = PQunescapeBytea(text, &length) else { throw mismatch(column, "bytea") }
        defer { PQfreemem(unescaped) }
        return Array(UnsafeBufferPointer(start: unescaped, count: length))
    }

    public func bytes(_ column: Int) throws(PostgreSQLError) -> [UInt8] {
        guard let value = try optionalBytes(column) else { throw mismatch(column, "bytea") }
        return value
    }

    public func data(_ column: Int) throws(PostgreSQLError) -> Data { Data(try bytes(column)) }

    /// Pairs of hexadecimal digits as bytes; nil for an odd count or another character.
    static func hex(_ digits: Substring.UTF8View) -> [UInt8]? {
        guard digits.count % 2 == 0 else { return nil }
        func nibble(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 0x30...0x39: digit - 0x30
            case 0x61...0x66: digit - 0x61 + 10
            case 0x41...0x46: digit - 0x41 + 10
            default: nil
            }
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(digits.count / 2)
        var high: UInt8?
        for digit in digits {
            guard let value = nibble(digit) else { return nil }
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return bytes
    }

    private func mismatch(_ column: Int, _ type: String) -> PostgreSQLError {
        let name = column < columns.count ? columns[column] : String(column)
        let found = fields[column].map { "'\($0.prefix(40))'" } ?? "NULL"
        return PostgreSQLError(kind: .valueMismatch, message: "column \(name) holds \(found), not a \(type)")
    }
}
