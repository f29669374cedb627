/// Cycling Power Feature, characteristic 0x2A65 (GATT Specification Supplement 3.63;
/// Cycling Power Service 1.1 section 3.3): a uint32 bit field of what the sensor supports,
/// read once after connecting. Bits 22–31 are reserved and ignored.
public struct CyclingPowerFeature: GATTCharacteristicValue {
    public static let uuid = BluetoothUUID.cyclingPowerFeature

    /// One supported feature, by its bit number.
    public enum Feature: Int, Sendable, Hashable, CaseIterable {
        case pedalPowerBalance = 0
        case accumulatedTorque = 1
        case wheelRevolutionData = 2
        case crankRevolutionData = 3
        case extremeMagnitudes = 4
        case extremeAngles = 5
        case topAndBottomDeadSpotAngles = 6
        case accumulatedEnergy = 7
        case offsetCompensationIndicator = 8
        case offsetCompensation = 9
        case cyclingPowerMeasurementContentMasking = 10
        case multipleSensorLocations = 11
        case crankLengthAdjustment = 12
        case chainLengthAdjustment = 13
        case chainWeightAdjustment = 14
        case spanLengthAdjustment = 15
        case instantaneousMeasurementDirection = 17
        case factoryCalibrationDate = 18
        case enhancedOffsetCompensation = 19

        /// The name `sensorbridge decode` prints.
        public var name: String {
            switch self {
            case .pedalPowerBalance: "pedalPowerBalance"
            case .accumulatedTorque: "accumulatedTorque"
            case .wheelRevolutionData: "wheelRevolutionData"
            case .crankRevolutionData: "crankRevolutionData"
            case .extremeMagnitudes: "extremeMagnitudes"
            case .extremeAngles: "extremeAngles"
            case .topAndBottomDeadSpotAngles: "topAndBottomDeadSpotAngles"
            case .accumulatedEnergy: "accumulatedEnergy"
            case .offsetCompensationIndicator: "offsetCompensationIndicator"
            case .offsetCompensation: "offsetCompensation"
            case .cyclingPowerMeasurementContentMasking: "cyclingPowerMeasurementContentMasking"
            case .multipleSensorLocations: "multipleSensorLocations"
            case .crankLengthAdjustment: "crankLengthAdjustment"
            case .chainLengthAdjustment: "chainLengthAdjustment"
            case .chainWeightAdjustment: "chainWeightAdjustment"
            case .spanLengthAdjustment: "spanLengthAdjustment"
            case .instantaneousMeasurementDirection: "instantaneousMeasurementDirection"
            case .factoryCalibrationDate: "factoryCalibrationDate"
            case .enhancedOffsetCompensation: "enhancedOffsetCompensation"
            }
        }
    }

    /// Sensor Measurement Context, bit 16.
    public enum MeasurementContext: String, Sendable, Hashable {
        case forceBased, torqueBased
    }

    /// Distribute System Support, bits 20–21.
    public enum DistributedSystemSupport: String, Sendable, Hashable {
        case unspecified
        case notForDistributedSystem
        case forDistributedSystem
        case reserved
    }

    /// The 32 bits as sent.
    public var rawValue: UInt32
    public var trailingByteCount: Int

    public init(rawValue: UInt32, trailingByteCount: Int = 0) {
        self.rawValue = rawValue
        self.trailingByteCount = trailingByteCount
    }

    public init(decoding bytes: [UInt8]) throws(GATTDecodingError) {
        var reader = ByteReader(bytes)
        rawValue = try reader.uint32(.cyclingPowerFeature)
        trailingByteCount = reader.remaining
    }

    public func supports(_ feature: Feature) -> Bool { rawValue >> UInt32(feature.rawValue) & 1 != 0 }

    /// The supported features, in bit order.
    public var features: [Feature] { Feature.allCases.filter(supports) }

    public var sensorMeasurementContext: MeasurementContext { rawValue & 1 << 16 != 0 ? .torqueBased : .forceBased }

    public var distributedSystemSupport: DistributedSystemSupport {
        switch rawValue >> 20 & 0x03 {
        case 0: .unspecified
        case 1: .notForDistributedSystem
        case 2: .forDistributedSystem
        default: .reserved
        }
    }
}
