public import GATT

/// Random, valid characteristic values with every flag combination reachable, for round trips.
public enum RandomMeasurements {
    static func maybe<T>(_ present: Bool, _ make: () -> T) -> T? { present ? make() : nil }

    public static func heartRate(using rng: inout some RandomNumberGenerator) -> HeartRateMeasurement {
        let flags = UInt8.random(in: 0...255, using: &rng)
        let sixteen = flags & 0x01 != 0
        let rrCount = flags & 0x10 != 0 ? Int.random(in: 1...9, using: &rng) : 0
        let contact: HeartRateMeasurement.SensorContact =
            switch flags >> 1 & 3 {
            case 2: .notDetected
            case 3: .detected
            default: .notSupported
            }
        return HeartRateMeasurement(
            flags: flags,
            heartRate: sixteen ? UInt16.random(in: 0...UInt16.max, using: &rng) : UInt16(UInt8.random(in: 0...255, using: &rng)),
            sensorContact: contact,
            energyExpended: maybe(flags & 0x08 != 0) { UInt16.random(in: 0...UInt16.max, using: &rng) },
            rrIntervals: (0..<rrCount).map { _ in RRInterval(rawValue: UInt16.random(in: 0...UInt16.max, using: &rng)) })
    }

    public static func cyclingPower(using rng: inout some RandomNumberGenerator) -> CyclingPowerMeasurement {
        let flags = UInt16.random(in: 0...UInt16.max, using: &rng)
        func u16() -> UInt16 { UInt16.random(in: 0...UInt16.max, using: &rng) }
        func i16() -> Int16 { Int16.random(in: Int16.min...Int16.max, using: &rng) }
        return CyclingPowerMeasurement(
            flags: flags, instantaneousPower: i16(),
            pedalPowerBalance: maybe(flags & 0x0001 != 0) { UInt8.random(in: 0...255, using: &rng) },
            accumulatedTorque: maybe(flags & 0x0004 != 0) { u16() },
            wheelRevolutionData: maybe(flags & 0x0010 != 0) {
                WheelRevolutionData(
                    cumulativeRevolutions: UInt32.random(in: 0...UInt32.max, using: &rng), lastEventTime: u16(),
                    ticksPerSecond: 2048)
            },
            crankRevolutionData: maybe(flags & 0x0020 != 0) {
                CrankRevolutionData(cumulativeRevolutions: u16(), lastEventTime: u16())
            },
            extremeForceMagnitudes: maybe(flags & 0x0040 != 0) { ExtremeMagnitudes(maximum: i16(), minimum: i16()) },
            extremeTorqueMagnitudes: maybe(flags & 0x0080 != 0) { ExtremeMagnitudes(maximum: i16(), minimum: i16()) },
            extremeAngles: maybe(flags & 0x0100 != 0) {
                ExtremeAngles(maximum: u16() & 0xFFF, minimum: u16() & 0xFFF)
            },
            topDeadSpotAngle: maybe(flags & 0x0200 != 0) { u16() },
            bottomDeadSpotAngle: maybe(flags & 0x0400 != 0) { u16() },
            accumulatedEnergy: maybe(flags & 0x0800 != 0) { u16() })
    }

    public static func cyclingPowerVector(using rng: inout some RandomNumberGenerator) -> CyclingPowerVector {
        var flags = UInt8.random(in: 0...255, using: &rng)
        if flags & 0x0C == 0x0C { flags &= ~0x08 }  // the arrays exclude each other
        func u16() -> UInt16 { UInt16.random(in: 0...UInt16.max, using: &rng) }
        let count = Int.random(in: 1...8, using: &rng)
        let array = (0..<count).map { _ in Int16.random(in: Int16.min...Int16.max, using: &rng) }
        return CyclingPowerVector(
            flags: flags,
            crankRevolutionData: maybe(flags & 0x01 != 0) {
                CrankRevolutionData(cumulativeRevolutions: u16(), lastEventTime: u16())
            },
            firstCrankMeasurementAngle: maybe(flags & 0x02 != 0) { u16() },
            instantaneousForceMagnitudes: flags & 0x04 != 0 ? array : [],
            instantaneousTorqueMagnitudes: flags & 0x08 != 0 ? array : [])
    }

    public static func csc(using rng: inout some RandomNumberGenerator) -> CSCMeasurement {
        let flags = UInt8.random(in: 0...255, using: &rng)
        func u16() -> UInt16 { UInt16.random(in: 0...UInt16.max, using: &rng) }
        return CSCMeasurement(
            flags: flags,
            wheelRevolutionData: maybe(flags & 0x01 != 0) {
                WheelRevolutionData(
                    cumulativeRevolutions: UInt32.random(in: 0...UInt32.max, using: &rng), lastEventTime: u16(),
                    ticksPerSecond: 1024)
            },
            crankRevolutionData: maybe(flags & 0x02 != 0) {
                CrankRevolutionData(cumulativeRevolutions: u16(), lastEventTime: u16())
            })
    }
}
