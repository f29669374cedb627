/// The FIT CRC (FIT Protocol, "CRC"): CRC-16 with the reflected polynomial 0xA001 (x^16 + x^15 +
/// x^2 + 1), initial value 0, no final XOR; the same as CRC-16/ARC, whose check value for the
/// ASCII bytes "123456789" is 0xBB3D. The protocol describes it four bits at a time; this table
/// takes a byte at a time, which gives the same values.
struct FITCRC: Sendable {
    /// The CRC of the bytes so far.
    private(set) var value: UInt16 = 0

    /// The CRC contribution of each byte value, computed once.
    private static let table: [UInt16] = (0...255).map { byte in
        var crc = UInt16(byte)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        return crc
    }

    init() {}

    mutating func update(_ bytes: some Sequence<UInt8>) {
        let table = Self.table
        var crc = value
        for byte in bytes { crc = (crc >> 8) ^ table[Int(UInt8(truncatingIfNeeded: crc) ^ byte)] }
        value = crc
    }

    /// The CRC of `bytes`.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc = FITCRC()
        crc.update(bytes)
        return crc.value
    }
}
