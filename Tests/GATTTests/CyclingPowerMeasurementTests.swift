import GATT
import SensorTestSupport
import Testing

@Suite struct CyclingPowerMeasurementTests {
    @Test func powerWithCrankData() throws {
        // 20 00    flags 0x0020: bit5 crank revolution data
        // fa 00    instantaneous power 0x00fa = 250 W
        // 2a 00    cumulative crank revolutions 42
        // 00 28    last crank event time 0x2800 = 10240/1024 = 10 s
        let m = try CyclingPowerMeasurement(decoding: [0x20, 0x00, 0xFA, 0x00, 0x2A, 0x00, 0x00, 0x28])
        #expect(m.instantaneousPower == 250)
        #expect(m.crankRevolutionData == CrankRevolutionData(cumulativeRevolutions: 42, lastEventTime: 10240))
        #expect(m.crankRevolutionData?.lastEventSeconds == 10)
        #expect(m.wheelRevolutionData == nil)
        #expect(m.pedalPowerBalance == nil)
        #expect(!m.offsetCompensationIndicator)
    }

    @Test func negativePowerIsSigned() throws {
        // 00 00 flags; 9c ff = -100 W (two's complement)
        #expect(try CyclingPowerMeasurement(decoding: [0x00, 0x00, 0x9C, 0xFF]).instantaneousPower == -100)
    }

    @Test func everyFieldInFlagOrder() throws {
        let bytes: [UInt8] = [
            0xFF, 0x1F,  // flags 0x1fff: bits 0-12 (balance reference left, torque source crank, offset indicator)
            0x2C, 0x01,  // instantaneous power 300 W
            0x65,  // pedal power balance 101 × 1/2 % = 50.5 %
            0x40, 0x06,  // accumulated torque 0x0640 = 1600/32 = 50 N·m
            0x10, 0x27, 0x00, 0x00,  // cumulative wheel revolutions 10000
            0x00, 0x08,  // last wheel event time 0x0800 = 2048/2048 = 1 s
            0x64, 0x00,  // cumulative crank revolutions 100
            0x00, 0x02,  // last crank event time 0x0200 = 512/1024 = 0.5 s
            0xF4, 0x01, 0x38, 0xFF,  // force magnitudes: max 500 N, min -200 N
            0x40, 0x01, 0xE0, 0xFF,  // torque magnitudes: max 320/32 = 10 N·m, min -32/32 = -1 N·m
            0xBC, 0x3A, 0x12,  // extreme angles: max 0xabc = 2748°, min 0x123 = 291° (low 12 bits = max)
            0x0A, 0x00,  // top dead spot angle 10°
            0xBE, 0x00,  // bottom dead spot angle 190°
            0xD2, 0x04,  // accumulated energy 1234 kJ
        ]
        let m = try CyclingPowerMeasurement(decoding: bytes)
        #expect(m.instantaneousPower == 300)
        #expect(m.pedalPowerBalancePercent == 50.5)
        #expect(m.pedalPowerBalanceReference == .left)
        #expect(m.accumulatedTorqueNewtonMetres == 50)
        #expect(m.accumulatedTorqueSource == .crank)
        #expect(m.wheelRevolutionData?.cumulativeRevolutions == 10000)
        #expect(m.wheelRevolutionData?.lastEventSeconds == 1)
        #expect(m.crankRevolutionData?.cumulativeRevolutions == 100)
        #expect(m.crankRevolutionData?.lastEventSeconds == 0.5)
        #expect(m.extremeForceMagnitudes == ExtremeMagnitudes(maximum: 500, minimum: -200))
        #expect(m.extremeTorqueMagnitudes == ExtremeMagnitudes(maximum: 320, minimum: -32))
        #expect(m.extremeAngles == ExtremeAngles(maximum: 0xABC, minimum: 0x123))
        #expect(m.topDeadSpotAngle == 10)
        #expect(m.bottomDeadSpotAngle == 190)
        #expect(m.accumulatedEnergy == 1234)
        #expect(m.offsetCompensationIndicator)
        #expect(m.trailingByteCount == 0)
        #expect(m.encoded() == bytes)

        // Every proper prefix is truncated, at an offset no further than the cut.
        for length in 0..<bytes.count {
            let error = decodingError { _ = try CyclingPowerMeasurement(decoding: Array(bytes.prefix(length))) }
            #expect(error?.kind == .truncated, "prefix of \(length) bytes")
            #expect((error?.offset ?? .max) <= length)
        }
    }

    @Test func truncationNamesTheMissingField() {
        // flags 0x0020 (crank data), power 200 W, crank revolutions 10, then one byte of the time
        #expect(
            decodingError { _ = try CyclingPowerMeasurement(decoding: [0x20, 0x00, 0xC8, 0x00, 0x0A, 0x00, 0xE8]) }
                == .truncated(.lastCrankEventTime, at: 6, needs: 2, available: 1))
        // flags 0x0100 (extreme angles), power 0, two of the three angle bytes
        #expect(
            decodingError { _ = try CyclingPowerMeasurement(decoding: [0x00, 0x01, 0x00, 0x00, 0x01, 0x02]) }
                == .truncated(.extremeAngles, at: 4, needs: 3, available: 2))
    }

    @Test func reservedFlagsIgnoredAndTrailingBytesCounted() throws {
        // flags 0xe000: only reserved bits 13-15; power 1 W; then two bytes no flag accounts for
        let m = try CyclingPowerMeasurement(decoding: [0x00, 0xE0, 0x01, 0x00, 0xAB, 0xCD])
        #expect(m.instantaneousPower == 1)
        #expect(m.trailingByteCount == 2)
        #expect(m.crankRevolutionData == nil)
    }
}

@Suite struct OtherCharacteristicTests {
    @Test func cyclingPowerVectorWithForceArray() throws {
        // 17       flags 0b0001_0111: crank data, first angle, force array, direction 1 (tangential)
        // 05 00    crank revolutions 5;  00 04  last crank event time 1024/1024 = 1 s
        // 5a 00    first crank measurement angle 90°
        // 64 00 9c ff   forces 100 N, -100 N
        let v = try CyclingPowerVector(decoding: [0x17, 0x05, 0x00, 0x00, 0x04, 0x5A, 0x00, 0x64, 0x00, 0x9C, 0xFF])
        #expect(v.crankRevolutionData == CrankRevolutionData(cumulativeRevolutions: 5, lastEventTime: 1024))
        #expect(v.firstCrankMeasurementAngle == 90)
        #expect(v.instantaneousForceMagnitudes == [100, -100])
        #expect(v.instantaneousTorqueMagnitudes.isEmpty)
        #expect(v.instantaneousMeasurementDirection == .tangential)
    }

    @Test func cyclingPowerVectorWithBothArraysIsMalformed() {
        #expect(decodingError { _ = try CyclingPowerVector(decoding: [0x0C, 0x01, 0x00]) }?.kind == .malformed)
    }

    @Test func cscMeasurementWheelAndCrank() throws {
        // 03: wheel and crank data; wheel 1000 revs (e8 03 00 00) at 2048/1024 = 2 s (00 08);
        // crank 20 revs (14 00) at 1536/1024 = 1.5 s (00 06)
        let m = try CSCMeasurement(decoding: [0x03, 0xE8, 0x03, 0x00, 0x00, 0x00, 0x08, 0x14, 0x00, 0x00, 0x06])
        #expect(m.wheelRevolutionData?.cumulativeRevolutions == 1000)
        #expect(m.wheelRevolutionData?.lastEventSeconds == 2)
        #expect(m.crankRevolutionData == CrankRevolutionData(cumulativeRevolutions: 20, lastEventTime: 1536))
        #expect(m.crankRevolutionData?.lastEventSeconds == 1.5)
    }

    @Test func cyclingPowerFeatureBits() throws {
        // 0x0021_000c little-endian: wheel and crank revolution data (bits 2, 3), torque-based
        // context (bit 16), distributed system support 0b10 in bits 20-21 = "can be used in one"
        let f = try CyclingPowerFeature(decoding: [0x0C, 0x00, 0x21, 0x00])
        #expect(f.features == [.wheelRevolutionData, .crankRevolutionData])
        #expect(f.sensorMeasurementContext == .torqueBased)
        #expect(f.distributedSystemSupport == .forDistributedSystem)
        #expect(decodingError { _ = try CyclingPowerFeature(decoding: [0x0C, 0x00, 0x21]) }?.field == .cyclingPowerFeature)
    }

    @Test func locationsAndBattery() throws {
        #expect(try SensorLocation(decoding: [5]).location == .leftCrank)
        #expect(try SensorLocation(decoding: [16]).location.name == "chainRing")
        #expect(try SensorLocation(decoding: [17]).location == .reserved(17))
        #expect(try BodySensorLocation(decoding: [1]).location == .chest)
        #expect(try BodySensorLocation(decoding: [5]).location.name == "earLobe")
        #expect(try BodySensorLocation(decoding: [200, 0]).trailingByteCount == 1)
        #expect(try BatteryLevel(decoding: [87]).percent == 87)
        #expect(try BatteryLevel(decoding: [100]).percent == 100)
        #expect(decodingError { _ = try BatteryLevel(decoding: [101]) }?.kind == .malformed)
        #expect(decodingError { _ = try BatteryLevel(decoding: []) }?.kind == .truncated)
    }
}
