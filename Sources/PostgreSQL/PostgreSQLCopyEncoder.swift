/// The bytes of a `COPY ... FROM STDIN` stream, row by row (PostgreSQL documentation, the `COPY`
/// command's "File Formats").
///
/// Binary: the 11-byte signature `PGCOPY\n\377\r\n\0`, a 32-bit flags field (0: no OIDs) and a
/// 32-bit header extension length (0), then per row a 16-bit field count and per field a 32-bit
/// length (-1 for NULL) and that many bytes, and a 16-bit -1 as the trailer; every integer
/// big-endian. A field's bytes are its type's binary form (`int8send`, `float8send`, ...): in
/// binary each value must be of its column's type (`int64` for `bigint`, `double` for `double
/// precision`, `bool` for `boolean`, `text` for `text` or `varchar`, `bytea` for `bytea`), or the
/// server refuses the copy with `22P03`.
///
/// Text: fields apart by a tab, rows ended by a newline, `\N` for NULL, and a backslash before
/// backslash, tab, newline and carriage return; `bytea` as its hex text (`\\x0001ff`). The server
/// reads each field with its column's input function, as it reads a parameter.
public struct PostgreSQLCopyEncoder: Sendable {
    public enum Format: Sendable, Hashable {
        case binary
        case text
    }

    public let format: Format
    /// What is encoded so far and not yet taken.
    public private(set) var bytes: [UInt8] = []

    /// `PGCOPY\n\377\r\n\0`.
    public static let binarySignature: [UInt8] = [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00]

    /// Starts the stream: in binary, with its header.
    public init(format: Format) {
        self.format = format
        if format == .binary {
            bytes += Self.binarySignature
            append(UInt32(0))  // flags: no OIDs
            append(UInt32(0))  // header extension length
        }
    }

    /// Adds one row; `valueMismatch` for a field longer than 2 GiB (PostgreSQL's limit is 1 GiB).
    public mutating func append(row: [PostgreSQLValue]) throws(PostgreSQLError) {
        switch format {
        case .binary:
            guard row.count <= Int16.max else { throw PostgreSQLError(kind: .copyRowMismatch, message: "\(row.count) fields in one row") }
            append(UInt16(row.count))
            for value in row { try appendBinary(value) }
        case .text:
            for (index, value) in row.enumerated() {
                if index > 0 { bytes.append(0x09) }
                appendText(value)
            }
            bytes.append(0x0A)
        }
    }

    /// Ends the stream: in binary, with its trailer (a field count of -1).
    public mutating func finish() {
        if format == .binary { append(UInt16(bitPattern: -1)) }
    }

    /// The bytes encoded so far; the encoder goes on with none.
    public mutating func take() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }

    private mutating func append(_ value: UInt16) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(value & 0xFF))
    }

    private mutating func append(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8((value >> UInt32(shift)) & 0xFF)) }
    }

    private mutating func append(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((value >> UInt64(shift)) & 0xFF)) }
    }

    private mutating func appendField<Bytes: Collection<UInt8>>(_ field: Bytes) throws(PostgreSQLError) {
        guard field.count <= Int32.max else {
            throw PostgreSQLError(kind: .valueMismatch, message: "a field of \(field.count) bytes: more than COPY's 2 GiB")
        }
        append(UInt32(field.count))
        bytes += field
    }

    private mutating func appendBinary(_ value: PostgreSQLValue) throws(PostgreSQLError) {
        switch value {
        case .null: append(UInt32(bitPattern: -1))
        case .bool(let flag):
            append(UInt32(1))
            bytes.append(flag ? 1 : 0)
        case .int64(let number):
            append(UInt32(8))
            append(UInt64(bitPattern: number))
        case .double(let number):
            append(UInt32(8))
            append(number.bitPattern)
        case .text(let text): try appendField(text.utf8)
        case .bytea(let data): try appendField(data)
        }
    }

    private mutating func appendText(_ value: PostgreSQLValue) {
        switch value {
        case .null: bytes += [0x5C, 0x4E]  // \N
        case .bytea(let data):
            bytes += [0x5C, 0x5C, 0x78]  // \\x: the hex form's backslash, escaped
            let digits: [UInt8] = Array("0123456789abcdef".utf8)
            for byte in data {
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0x0F)])
            }
        default:
            for byte in (value.textForm ?? "").utf8 {
                switch byte {
                case 0x5C: bytes += [0x5C, 0x5C]
                case 0x09: bytes += [0x5C, 0x74]
                case 0x0A: bytes += [0x5C, 0x6E]
                case 0x0D: bytes += [0x5C, 0x72]
                default: bytes.append(byte)
                }
            }
        }
    }
}
