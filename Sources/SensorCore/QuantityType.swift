/// What a sample measures. Each type has one canonical unit, used by `Sample.value`.
///
/// The raw value is stable: it is stored in samples that cross threads and, later, in files.
public enum QuantityType: UInt8, Sendable, BitwiseCopyable, CaseIterable, Hashable, Codable {
    /// Heart rate in beats per minute (`count/min`).
    case heartRate = 1
    /// Cycling power in watts; may be negative (a coasting hub can report it).
    case cyclingPower = 2
    /// Crank cadence in revolutions per minute.
    case cyclingCadence = 3
    /// Wheel speed in metres per second.
    case cyclingSpeed = 4
    /// One beat-to-beat (RR) interval, in seconds.
    case rrInterval = 5
    /// Cumulative energy expended reported by a heart-rate strap, in kilojoules.
    case energyExpended = 6
    /// Cumulative energy reported by a power meter, in kilojoules.
    case accumulatedEnergy = 7
    /// Battery level in percent.
    case batteryLevel = 8
    /// The left pedal's share of the power in percent (Cycling Power Measurement's pedal power
    /// balance when its reference is the left pedal).
    case pedalPowerBalance = 9

    /// The canonical unit of `Sample.value` for this type.
    public var canonicalUnit: QuantityUnit {
        switch self {
        case .heartRate: .countPerMinute
        case .cyclingPower: .watt
        case .cyclingCadence: .revolutionsPerMinute
        case .cyclingSpeed: .metrePerSecond
        case .rrInterval: .second
        case .energyExpended, .accumulatedEnergy: .kilojoule
        case .batteryLevel, .pedalPowerBalance: .percent
        }
    }

    /// The name used on the command line and in JSON: `heartRate`, `cyclingPower`, ...
    public var identifier: String {
        switch self {
        case .heartRate: "heartRate"
        case .cyclingPower: "cyclingPower"
        case .cyclingCadence: "cyclingCadence"
        case .cyclingSpeed: "cyclingSpeed"
        case .rrInterval: "rrInterval"
        case .energyExpended: "energyExpended"
        case .accumulatedEnergy: "accumulatedEnergy"
        case .batteryLevel: "batteryLevel"
        case .pedalPowerBalance: "pedalPowerBalance"
        }
    }

    /// Parses `identifier`, or the kebab-case spelling used by flags (`heart-rate`, `cycling-power`, `power`).
    public init?(identifier: String) {
        let folded = identifier.lowercased().filter { $0 != "-" && $0 != "_" }
        switch folded {
        case "heartrate", "hr": self = .heartRate
        case "cyclingpower", "power": self = .cyclingPower
        case "cyclingcadence", "cadence": self = .cyclingCadence
        case "cyclingspeed", "speed": self = .cyclingSpeed
        case "rrinterval", "rr": self = .rrInterval
        case "energyexpended": self = .energyExpended
        case "accumulatedenergy": self = .accumulatedEnergy
        case "batterylevel", "battery": self = .batteryLevel
        case "pedalpowerbalance", "balance": self = .pedalPowerBalance
        default: return nil
        }
    }
}

/// A set of quantity types as one bit each: what the workout state machine asks of every sample
/// (`contains`, `insert`) costs a mask, where `Set<QuantityType>` hashes the type each time.
public struct QuantityTypeSet: Sendable, Hashable, ExpressibleByArrayLiteral {
    private var bits: UInt32 = 0

    public init() {}
    public init(arrayLiteral types: QuantityType...) { for type in types { insert(type) } }

    public var isEmpty: Bool { bits == 0 }
    public func contains(_ type: QuantityType) -> Bool { bits & Self.bit(type) != 0 }
    public mutating func insert(_ type: QuantityType) { bits |= Self.bit(type) }
    private static func bit(_ type: QuantityType) -> UInt32 { 1 << UInt32(type.rawValue & 31) }
}

/// A value per quantity type, kept in an array indexed by the type's raw value: a lookup for
/// every sample without hashing.
public struct QuantityTypeMap<Value: Sendable>: Sendable {
    private var values: [Value?]

    public init() { values = Array(repeating: nil, count: Int(QuantityType.allCases.map(\.rawValue).max()!) + 1) }

    public subscript(type: QuantityType) -> Value? {
        get { values[Int(type.rawValue)] }
        set { values[Int(type.rawValue)] = newValue }
    }
}
