/// A cursor over a characteristic value's bytes, reading little-endian fields as the GATT
/// specification transmits them.
///
/// A read either returns the whole field and moves on, or throws `truncated` (naming the field
/// and its offset) and does not move: it never reads past the end and never traps.
public struct ByteReader: Sendable {
    public let bytes: [UInt8]
    /// Offset of the next unread byte.
    public private(set) var offset: Int = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Bytes not read yet.
    @inline(__always) public var remaining: Int { bytes.count - offset }

    @inline(__always)
    func require(_ count: Int, for field: GATTField) throws(GATTDecodingError) {
        guard remaining >= count else {
            throw .truncated(field, at: offset, needs: count, available: remaining)
        }
    }

    public mutating func uint8(_ field: GATTField) throws(GATTDecodingError) -> UInt8 {
        try require(1, for: field)
        defer { offset += 1 }
        return bytes[offset]
    }

    /// uint16, little-endian.
    public mutating func uint16(_ field: GATTField) throws(GATTDecodingError) -> UInt16 {
        try require(2, for: field)
        defer { offset += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    /// sint16, little-endian two's complement.
    public mutating func int16(_ field: GATTField) throws(GATTDecodingError) -> Int16 {
        Int16(bitPattern: try uint16(field))
    }

    /// uint24, little-endian, in the low 24 bits of the result.
    public mutating func uint24(_ field: GATTField) throws(GATTDecodingError) -> UInt32 {
        try require(3, for: field)
        defer { offset += 3 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
    }

    /// uint32, little-endian.
    public mutating func uint32(_ field: GATTField) throws(GATTDecodingError) -> UInt32 {
        try require(4, for: field)
        defer { offset += 4 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }

    /// The rest of the payload as 16-bit values: the variable-length arrays that end a
    /// characteristic (RR intervals, force and torque magnitude arrays). They hold as many
    /// complete values as the bytes allow: a flagged array with no bytes is empty, and an odd
    /// stray byte after the last value is left unread, to count as trailing (as Wireshark decodes
    /// it; `shared/conformance`'s rule), so a stray byte never costs the values before it.
    public mutating func uint16Array<Element>(_ transform: (UInt16) -> Element) -> [Element] {
        let end = offset + remaining / 2 * 2
        var values: [Element] = []
        values.reserveCapacity(remaining / 2)
        while offset < end {
            values.append(transform(UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8))
            offset += 2
        }
        return values
    }
}
