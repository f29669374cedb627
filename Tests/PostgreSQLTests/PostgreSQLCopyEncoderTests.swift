import PostgreSQL
import Testing

/// The bytes of a COPY stream, checked against the format the `COPY` documentation describes
/// ("File Formats"); no server needed.
struct PostgreSQLCopyEncoderTests {
    /// Binary: signature, flags, header extension length; a row's field count, each field's length
    /// (-1 for NULL) and bytes, big-endian; the trailer -1.
    @Test func binaryStreamIsSignatureHeaderRowsAndTrailer() throws {
        var encoder = PostgreSQLCopyEncoder(format: .binary)
        try encoder.append(row: [.int64(-2), .null, .double(1.5), .bool(true), .text("é"), .bytea([0, 0xFF])])
        encoder.finish()
        let expected: [UInt8] =
            [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00]  // PGCOPY\n\377\r\n\0
            + [0, 0, 0, 0]  // flags
            + [0, 0, 0, 0]  // header extension length
            + [0, 6]  // 6 fields
            + [0, 0, 0, 8] + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE]  // int8 -2
            + [0xFF, 0xFF, 0xFF, 0xFF]  // NULL
            + [0, 0, 0, 8] + [0x3F, 0xF8, 0, 0, 0, 0, 0, 0]  // float8 1.5
            + [0, 0, 0, 1] + [1]  // bool true
            + [0, 0, 0, 2] + [0xC3, 0xA9]  // text "é" in UTF-8
            + [0, 0, 0, 2] + [0, 0xFF]  // bytea
            + [0xFF, 0xFF]  // trailer
        #expect(encoder.take() == expected)
        #expect(encoder.bytes.isEmpty)
    }

    /// An empty binary stream is the header and the trailer; a row of no fields is a count of 0.
    @Test func binaryStreamWithoutRows() throws {
        var encoder = PostgreSQLCopyEncoder(format: .binary)
        try encoder.append(row: [])
        encoder.finish()
        #expect(encoder.take() == PostgreSQLCopyEncoder.binarySignature + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0] + [0xFF, 0xFF])
    }

    /// Text: tabs between fields, a newline after each row, \N for NULL, backslash escapes, bytea
    /// as escaped hex, the shortest exact spelling of a double and float8in's special values.
    @Test func textStreamEscapes() throws {
        var encoder = PostgreSQLCopyEncoder(format: .text)
        try encoder.append(row: [.int64(7), .null, .text("a\tb\nc\\d\re"), .bytea([0, 0xAB]), .bool(false)])
        try encoder.append(row: [.double(0.1), .double(.nan), .double(-.infinity)])
        encoder.finish()
        let text = String(decoding: encoder.take(), as: UTF8.self)
        #expect(text == "7\t\\N\ta\\tb\\nc\\\\d\\re\t\\\\x00ab\tf\n0.1\tNaN\t-Infinity\n")
    }
}
