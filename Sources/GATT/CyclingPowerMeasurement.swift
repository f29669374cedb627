/// Cycling Power Measurement, characteristic 0x2A63 (GATT Specification Supplement 3.64;
/// Cycling Power Service 1.1 section 3.2).
///
/// Layout: flags (uint16), instantaneous power (sint16, W), then the optional fields strictly
/// in flag-bit order. Bit 12 (offset compensation indicator) has no field; bits 13–15 are
/// reserved and ignored.
public struct CyclingPowerMeasurement: GATTCharacteristicValue {
    public static let uuid = BluetoothUUID.cyclingPowerMeasurement

    /// Pedal Power Balance Reference, flag bit 1.
    public enum BalanceReference: String, Sendable, Hashable {
        /// Bit 1 clear: which pedal the balance refers to is not known.
        case unknown
        /// Bit 1 set: the balance is the left pedal's share.
        case left
    }

    /// Accumulated Torque Source, flag bit 3.
    public enum TorqueSource: String, Sendable, Hashable {
        case wheel, crank
    }

    /// The 16 flag bits as sent.
    public var flags: UInt16
    /// Instantaneous power, watts. Signed: negative watts exist (a hub while back-pedalling).
    public var instantaneousPower: Int16
    /// Pedal power balance in units of 1/2 percent (flag bit 0).
    public var pedalPowerBalance: UInt8?
    /// Accumulated torque in units of 1/32 N·m (flag bit 2).
    public var accumulatedTorque: UInt16?
    /// Cumulative wheel revolutions and last wheel event time, 1/2048 s (flag bit 4).
    public var wheelRevolutionData: WheelRevolutionData?
    /// Cumulative crank revolutions and last crank event time, 1/1024 s (flag bit 5).
    public var crankRevolutionData: CrankRevolutionData?
    /// Maximum and minimum force magnitudes, newtons (flag bit 6).
    public var extremeForceMagnitudes: ExtremeMagnitudes?
    /// Maximum and minimum torque magnitudes in units of 1/32 N·m (flag bit 7).
    public var extremeTorqueMagnitudes: ExtremeMagnitudes?
    /// Maximum and minimum angles, degrees (flag bit 8).
    public var extremeAngles: ExtremeAngles?
    /// Top dead spot angle, degrees (flag bit 9).
    public var topDeadSpotAngle: UInt16?
    /// Bottom dead spot angle, degrees (flag bit 10).
    public var bottomDeadSpotAngle: UInt16?
    /// Accumulated energy, kilojoules (flag bit 11).
    public var accumulatedEnergy: UInt16?
    public var trailingByteCount: Int

    /// Flag bit 1.
    public var pedalPowerBalanceReference: BalanceReference { flags & 0x0002 != 0 ? .left : .unknown }
    /// Flag bit 3.
    public var accumulatedTorqueSource: TorqueSource { flags & 0x0008 != 0 ? .crank : .wheel }
    /// Flag bit 12: the sensor asks for an offset compensation.
    public var offsetCompensationIndicator: Bool { flags & 0x1000 != 0 }

    /// Pedal power balance in percent.
    public var pedalPowerBalancePercent: Double? { pedalPowerBalance.map { Double($0) / 2 } }
    /// Accumulated torque in N·m.
    public var accumulatedTorqueNewtonMetres: Double? { accumulatedTorque.map { Double($0) / 32 } }

    public init(
        flags: UInt16, instantaneousPower: Int16, pedalPowerBalance: UInt8? = nil, accumulatedTorque: UInt16? = nil,
        wheelRevolutionData: WheelRevolutionData? = nil, crankRevolutionData: CrankRevolutionData? = nil,
        extremeForceMagnitudes: ExtremeMagnitudes? = nil, extremeTorqueMagnitudes: ExtremeMagnitudes? = nil,
        extremeAngles: ExtremeAngles? = nil, topDeadSpotAngle: UInt16? = nil, bottomDeadSpotAngle: UInt16? = nil,
        accumulatedEnergy: UInt16? = nil, trailingByteCount: Int = 0
    ) {
        self.flags = flags
        self.instantaneousPower = instantaneousPower
        self.pedalPowerBalance = pedalPowerBalance
        self.accumulatedTorque = accumulatedTorque
        self.wheelRevolutionData = wheelRevolutionData
        self.crankRevolutionData = crankRevolutionData
        self.extremeForceMagnitudes = extremeForceMagnitudes
        self.extremeTorqueMagnitudes = extremeTorqueMagnitudes
        self.extremeAngles = extremeAngles
        self.topDeadSpotAngle = topDeadSpotAngle
        self.bottomDeadSpotAngle = bottomDeadSpotAngle
        self.accumulatedEnergy = accumulatedEnergy
        self.trailingByteCount = trailingByteCount
    }

    public init(decoding bytes: [UInt8]) throws(GATTDecodingError) {
        var reader = ByteReader(bytes)
        let flags = try reader.uint16(.flags)
        self.flags = flags
        instantaneousPower = try reader.int16(.instantaneousPower)
        pedalPowerBalance = flags & 0x0001 != 0 ? try reader.uint8(.pedalPowerBalance) : nil
        accumulatedTorque = flags & 0x0004 != 0 ? try reader.uint16(.accumulatedTorque) : nil
        if flags & 0x0010 != 0 {
            wheelRevolutionData = WheelRevolutionData(
                cumulativeRevolutions: try reader.uint32(.wheelRevolutions),
                lastEventTime: try reader.uint16(.lastWheelEventTime),
                ticksPerSecond: 2048)
        } else {
            wheelRevolutionData = nil
        }
        if flags & 0x0020 != 0 {
            crankRevolutionData = CrankRevolutionData(
                cumulativeRevolutions: try reader.uint16(.crankRevolutions),
                lastEventTime: try reader.uint16(.lastCrankEventTime))
        } else {
            crankRevolutionData = nil
        }
        if flags & 0x0040 != 0 {
            extremeForceMagnitudes = ExtremeMagnitudes(
                maximum: try reader.int16(.maximumForceMagnitude), minimum: try reader.int16(.minimumForceMagnitude))
        } else {
            extremeForceMagnitudes = nil
        }
        if flags & 0x0080 != 0 {
            extremeTorqueMagnitudes = ExtremeMagnitudes(
                maximum: try reader.int16(.maximumTorqueMagnitude), minimum: try reader.int16(.minimumTorqueMagnitude))
        } else {
            extremeTorqueMagnitudes = nil
        }
        extremeAngles = flags & 0x0100 != 0 ? ExtremeAngles(packed: try reader.uint24(.extremeAngles)) : nil
        topDeadSpotAngle = flags & 0x0200 != 0 ? try reader.uint16(.topDeadSpotAngle) : nil
        bottomDeadSpotAngle = flags & 0x0400 != 0 ? try reader.uint16(.bottomDeadSpotAngle) : nil
        accumulatedEnergy = flags & 0x0800 != 0 ? try reader.uint16(.accumulatedEnergy) : nil
        trailingByteCount = reader.remaining
    }
}

/// Cumulative wheel revolutions (uint32) and the time of the last wheel event (uint16).
/// The time's unit differs by characteristic: 1/2048 s in Cycling Power, 1/1024 s in CSC.
public struct WheelRevolutionData: Sendable, Hashable {
    public var cumulativeRevolutions: UInt32
    /// Last wheel event time in ticks of `1 / ticksPerSecond` seconds; wraps at 65536.
    public var lastEventTime: UInt16
    /// 2048 for Cycling Power Measurement, 1024 for CSC Measurement.
    public var ticksPerSecond: UInt16

    public init(cumulativeRevolutions: UInt32, lastEventTime: UInt16, ticksPerSecond: UInt16) {
        self.cumulativeRevolutions = cumulativeRevolutions
        self.lastEventTime = lastEventTime
        self.ticksPerSecond = ticksPerSecond
    }

    /// The last event time in seconds.
    public var lastEventSeconds: Double { Double(lastEventTime) / Double(ticksPerSecond) }
}

/// Cumulative crank revolutions (uint16) and the time of the last crank event (uint16, 1/1024 s).
public struct CrankRevolutionData: Sendable, Hashable {
    public var cumulativeRevolutions: UInt16
    /// Last crank event time in 1/1024 s; wraps at 65536 (64 s).
    public var lastEventTime: UInt16

    public init(cumulativeRevolutions: UInt16, lastEventTime: UInt16) {
        self.cumulativeRevolutions = cumulativeRevolutions
        self.lastEventTime = lastEventTime
    }

    /// The last event time in seconds.
    public var lastEventSeconds: Double { Double(lastEventTime) / 1024 }
}

/// A maximum and a minimum magnitude (sint16 each, maximum first, as transmitted).
public struct ExtremeMagnitudes: Sendable, Hashable {
    public var maximum: Int16
    public var minimum: Int16
    public init(maximum: Int16, minimum: Int16) {
        self.maximum = maximum
        self.minimum = minimum
    }
}

/// Extreme angles: a uint24 (little-endian) packing two 12-bit angles in degrees, the maximum
/// in the low 12 bits and the minimum in the high 12 bits (max 0xABC, min 0x123 travel as
/// `bc 3a 12`).
public struct ExtremeAngles: Sendable, Hashable {
    /// Maximum angle, degrees (0...4095).
    public var maximum: UInt16
    /// Minimum angle, degrees (0...4095).
    public var minimum: UInt16

    public init(maximum: UInt16, minimum: UInt16) {
        self.maximum = maximum & 0x0FFF
        self.minimum = minimum & 0x0FFF
    }

    /// Splits the transmitted 24-bit value.
    public init(packed: UInt32) {
        maximum = UInt16(packed & 0x0FFF)
        minimum = UInt16(packed >> 12 & 0x0FFF)
    }

    /// The 24-bit value as transmitted.
    public var packed: UInt32 { UInt32(maximum) | UInt32(minimum) << 12 }
}
