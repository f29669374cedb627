@testable import Export
import SensorCore
import Testing

/// The FIT protocol writer on its own: CRC, header, definition and data messages, invalid values.
@Suite struct FITWriterTests {
    /// The protocol's CRC as its specification describes it, four bits at a time, to check the
    /// byte-table version against.
    static func nibbleCRC(_ bytes: [UInt8]) -> UInt16 {
        let table: [UInt16] = [
            0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
            0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400,
        ]
        var crc: UInt16 = 0
        for byte in bytes {
            for nibble in [byte & 0x0F, byte >> 4] {
                let low = table[Int(crc & 0x0F)]
                crc = (crc >> 4) & 0x0FFF
                crc = crc ^ low ^ table[Int(nibble)]
            }
        }
        return crc
    }

    @Test func crcKnownValues() {
        #expect(FITCRC.checksum(Array("123456789".utf8)) == 0xBB3D)  // CRC-16/ARC check value
        #expect(FITCRC.checksum([]) == 0)
        #expect(FITCRC.checksum([0x01]) == 0xC0C1)
        // A 14-byte header followed by its CRC checks to zero, as every CRC-16 of this family does.
        let header = FITWriter.header(dataSize: 1234)
        #expect(FITCRC.checksum(header) == 0)
    }

    @Test func crcMatchesTheSpecificationsNibbleForm() {
        var random = SplitMix64(seed: 7)
        for length in [0, 1, 2, 13, 100, 1000] {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            #expect(FITCRC.checksum(bytes) == Self.nibbleCRC(bytes))
            var incremental = FITCRC()
            incremental.update(bytes.prefix(length / 2))
            incremental.update(bytes.dropFirst(length / 2))
            #expect(incremental.value == Self.nibbleCRC(bytes))
        }
    }

    @Test func headerLayout() {
        let header = FITWriter.header(dataSize: 0x0102_0304)
        #expect(header.count == 14)
        #expect(header[0] == 14)  // header size
        #expect(header[1] == 0x20)  // protocol 2.0
        #expect(UInt16(header[2]) | UInt16(header[3]) << 8 == 21218)  // profile 21.218
        #expect(Array(header[4..<8]) == [0x04, 0x03, 0x02, 0x01])  // data size, little-endian
        #expect(Array(header[8..<12]) == Array(".FIT".utf8))
        let crc = Self.nibbleCRC(Array(header[0..<12]))
        #expect(Array(header[12..<14]) == [UInt8(crc & 0xFF), UInt8(crc >> 8)])
    }

    @Test func definitionThenDataThenFileCRC() {
        var writer = FITWriter()
        var record = FITMessage(20)
        record.add(253, .uint32, 0x1122_3344)
        record.add(3, .uint8, 150)
        record.add(7, .uint16, nil as Int?)
        writer.write(record)
        writer.write(record)
        let file = writer.bytes()
        let data = Array(file[14..<(file.count - 2)])
        #expect(data == [
            0x40, 0, 0, 20, 0, 3,  // definition, local 0: reserved, little-endian, global 20, 3 fields
            253, 4, 0x86, 3, 1, 0x02, 7, 2, 0x84,  // timestamp uint32, heart_rate uint8, power uint16
            0x00, 0x44, 0x33, 0x22, 0x11, 150, 0xFF, 0xFF,  // data: power invalid
            0x00, 0x44, 0x33, 0x22, 0x11, 150, 0xFF, 0xFF,  // same layout: no second definition
        ])
        #expect(Array(file[4..<8]) == [UInt8(data.count), 0, 0, 0])
        #expect(FITCRC.checksum(file) == 0)  // file CRC over header and data
        #expect(Self.nibbleCRC(Array(file.dropLast(2))) == UInt16(file[file.count - 2]) | UInt16(file[file.count - 1]) << 8)
    }

    @Test func invalidValuesPerBaseType() {
        let expected: [(FITBaseType, [UInt8])] = [
            (.enum, [0xFF]), (.sint8, [0x7F]), (.uint8, [0xFF]), (.sint16, [0xFF, 0x7F]), (.uint16, [0xFF, 0xFF]),
            (.sint32, [0xFF, 0xFF, 0xFF, 0x7F]), (.uint32, [0xFF, 0xFF, 0xFF, 0xFF]), (.uint8z, [0]),
            (.uint16z, [0, 0]), (.uint32z, [0, 0, 0, 0]), (.byte, [0xFF]),
        ]
        for (type, bytes) in expected {
            var absent = FITMessage(1)
            absent.add(0, type, nil as Int?)
            #expect(absent.payload == bytes, "\(type)")
            // The invalid value itself, or anything out of range, is not a value either.
            var outOfRange = FITMessage(1)
            outOfRange.add(0, type, type.validRange.upperBound + 1)
            #expect(outOfRange.payload == bytes, "\(type)")
            var zero = FITMessage(1)
            zero.add(0, type, 0)
            #expect(zero.payload == (type.validRange.contains(0) ? Array(repeating: 0, count: type.size) : bytes))
        }
        var negative = FITMessage(1)
        negative.add(0, .sint16, -2)
        #expect(negative.payload == [0xFE, 0xFF])
    }

    @Test func scaledValuesArraysAndStrings() {
        var m = FITMessage(1)
        m.add(0, .uint16, 8.3456, scale: 1000)  // m/s × 1000
        m.add(1, .uint16, Double.nan, scale: 1000)
        m.add(2, .uint16, array: [60_000, nil])
        m.add(3, string: "héllo", size: 5)  // "hé" is 3 bytes; "hél" + NUL would need 5: fits
        m.add(4, string: "héllo wörld", size: 4)
        let expected: [UInt8] = [0x9A, 0x20, 0xFF, 0xFF, 0x60, 0xEA, 0xFF, 0xFF]  // 8346, invalid, [60000, invalid]
        #expect(m.payload == expected + Array("hél".utf8) + [0] + Array("hé".utf8) + [0])
        #expect(m.definition.fields.map(\.size) == [2, 2, 4, 5, 4])
    }

    @Test func localTypesAreReusedLeastRecentlyUsedFirst() {
        var writer = FITWriter()
        // 17 layouts: the 17th takes local type 0 (the least recently used); writing the first
        // layout again then needs its definition again, in local type 1.
        for field in 0..<17 {
            var m = FITMessage(20)
            m.add(UInt8(field), .uint8, 1)
            writer.write(m)
        }
        var first = FITMessage(20)
        first.add(0, .uint8, 1)
        writer.write(first)
        let data = Array(writer.bytes().dropFirst(14).dropLast(2))
        // Each step is a 9-byte definition (header, 5 bytes, 1 field × 3) and a 2-byte data message.
        let headers = stride(from: 0, to: data.count, by: 11).map { data[$0] }
        #expect(headers == (0..<16).map { 0x40 | UInt8($0) } + [0x40, 0x41])
    }
}
