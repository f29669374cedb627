import GATT
import SensorTestSupport
import Testing

@Suite struct HeartRateMeasurementTests {
    @Test func uint8HeartRateWithContactAndOneRRInterval() throws {
        // 16       flags 0b0001_0110: bit0=0 uint8 value, bits1-2=0b11 contact supported and
        //          detected, bit3=0 no energy, bit4=1 RR intervals follow
        // 48       heart rate 0x48 = 72 bpm
        // 00 03    RR 0x0300 = 768/1024 s = 0.75 s
        let m = try HeartRateMeasurement(decoding: [0x16, 0x48, 0x00, 0x03])
        #expect(m.heartRate == 72)
        #expect(!m.heartRateIsUInt16)
        #expect(m.sensorContact == .detected)
        #expect(m.energyExpended == nil)
        #expect(m.rrIntervals.map(\.seconds) == [0.75])
        #expect(m.rrIntervals.map(\.duration) == [.milliseconds(750)])
        #expect(m.trailingByteCount == 0)
    }

    @Test func uint16HeartRateEnergyAndTwoRRIntervals() throws {
        // 19       flags 0b0001_1001: uint16 value, contact not supported, energy, RR
        // 2c 01    heart rate 0x012c = 300 bpm (uint16 exists for this range)
        // e8 03    energy expended 0x03e8 = 1000 kJ
        // 00 04    RR 0x0400 = 1024/1024 = 1.0 s
        // 00 02    RR 0x0200 = 0.5 s
        let m = try HeartRateMeasurement(decoding: [0x19, 0x2C, 0x01, 0xE8, 0x03, 0x00, 0x04, 0x00, 0x02])
        #expect(m.heartRate == 300)
        #expect(m.heartRateIsUInt16)
        #expect(m.sensorContact == .notSupported)
        #expect(m.energyExpended == 1000)
        #expect(m.rrIntervals.map(\.seconds) == [1.0, 0.5])
    }

    @Test(arguments: [
        (UInt8(0b000), HeartRateMeasurement.SensorContact.notSupported),
        (0b010, .notSupported),  // bit1 (detected) without bit2 (supported) means nothing
        (0b100, .notDetected),
        (0b110, .detected),
    ])
    func sensorContactStates(flags: UInt8, expected: HeartRateMeasurement.SensorContact) throws {
        #expect(try HeartRateMeasurement(decoding: [flags, 60]).sensorContact == expected)
    }

    @Test func reservedFlagBitsAreIgnored() throws {
        // e0: bits 5-7 set (reserved), nothing else: a uint8 heart rate of 0x41 = 65
        let m = try HeartRateMeasurement(decoding: [0xE0, 0x41])
        #expect(m.heartRate == 65)
        #expect(m.sensorContact == .notSupported)
        #expect(m.rrIntervals.isEmpty)
    }

    @Test func trailingBytesWithoutRRAreCounted() throws {
        let m = try HeartRateMeasurement(decoding: [0x00, 0x50, 0xAA, 0xBB])
        #expect(m.heartRate == 80)
        #expect(m.trailingByteCount == 2)
    }

    @Test func emptyPayloadIsTruncatedAtFlags() {
        #expect(throws: GATTDecodingError.truncated(.flags, at: 0, needs: 1, available: 0)) {
            try HeartRateMeasurement(decoding: [])
        }
    }

    @Test func flaggedButEmptyRRListIsAnEmptyList() throws {
        // 18: uint8 value, energy, RR flagged; 48 = 72 bpm; 10 00 = 16 kJ; then no interval
        let m = try HeartRateMeasurement(decoding: [0x18, 0x48, 0x10, 0x00])
        #expect(m.heartRate == 72 && m.energyExpended == 16)
        #expect(m.rrIntervals.isEmpty && m.trailingByteCount == 0)
    }

    @Test func anOddRRByteIsTrailingAndTheWholeIntervalsDecode() throws {
        // One whole interval (00 03) then a stray byte (00): the interval and the heart rate
        // count, the byte is trailing (shared/conformance's rule, as Wireshark decodes it).
        let m = try HeartRateMeasurement(decoding: [0x10, 0x48, 0x00, 0x03, 0x00])
        #expect(m.heartRate == 72)
        #expect(m.rrIntervals.map(\.rawValue) == [0x0300])
        #expect(m.trailingByteCount == 1)
    }

    @Test func everyPrefixCutBeforeTheRRListIsTruncated() throws {
        // A value with every field and one RR interval: a prefix cut before the RR list is not a
        // whole value; one cut inside it keeps the fields before it, the byte counting as trailing.
        let full: [UInt8] = [0x1F, 0x2C, 0x01, 0xE8, 0x03, 0x00, 0x04]
        _ = try HeartRateMeasurement(decoding: full)
        for length in 0..<5 {
            let error = decodingError { _ = try HeartRateMeasurement(decoding: Array(full.prefix(length))) }
            #expect(error?.kind == .truncated, "prefix of \(length) bytes")
            #expect((error?.offset ?? .max) <= length)
        }
        for length in 5..<full.count {
            let m = try HeartRateMeasurement(decoding: Array(full.prefix(length)))
            #expect(m.heartRate == 300 && m.energyExpended == 1000 && m.rrIntervals.isEmpty)
            #expect(m.trailingByteCount == length - 5)
        }
    }

    @Test func prefixesOfAnRRListDecodeTheWholeIntervals() throws {
        // With several RR intervals the list is variable-length: cutting between two intervals
        // leaves a shorter list; cutting inside one leaves the whole ones and a trailing byte.
        let full: [UInt8] = [0x10, 0x48, 0x00, 0x03, 0x00, 0x04, 0x00, 0x05]
        for (length, intervals, trailing) in [(8, 3, 0), (7, 2, 1), (6, 2, 0), (5, 1, 1), (4, 1, 0), (3, 0, 1), (2, 0, 0)] {
            let m = try HeartRateMeasurement(decoding: Array(full.prefix(length)))
            #expect(m.rrIntervals.count == intervals && m.trailingByteCount == trailing, "prefix of \(length) bytes")
        }
    }
}
