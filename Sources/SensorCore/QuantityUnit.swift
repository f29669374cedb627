/// The physical dimension of a unit; only units of the same dimension convert into each other.
public enum UnitDimension: String, Sendable, Hashable, Codable {
    case frequency      // count/min, rpm
    case power          // W, kW
    case speed          // m/s, km/h
    case time           // s, ms
    case energy         // kJ, kcal
    case ratio          // %
}

/// A unit of measure with its conversion to the canonical unit of its dimension.
///
/// `canonicalValue = value * factor`. Units are identified by `symbol`, as HealthKit's
/// `HKUnit` unit strings are (`count/min`, `W`).
public struct QuantityUnit: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The unit string, for example `count/min` or `W`.
    public let symbol: String
    public let dimension: UnitDimension
    /// Multiplier from this unit to the canonical unit of `dimension`.
    public let factor: Double

    public init(symbol: String, dimension: UnitDimension, factor: Double) {
        self.symbol = symbol
        self.dimension = dimension
        self.factor = factor
    }

    public var description: String { symbol }

    /// Beats (or counts) per minute: HealthKit's `count/min`. Canonical for `.frequency`.
    public static let countPerMinute = QuantityUnit(symbol: "count/min", dimension: .frequency, factor: 1)
    /// Revolutions per minute, the same dimension as `count/min`.
    public static let revolutionsPerMinute = QuantityUnit(symbol: "rpm", dimension: .frequency, factor: 1)
    /// Watts. Canonical for `.power`.
    public static let watt = QuantityUnit(symbol: "W", dimension: .power, factor: 1)
    public static let kilowatt = QuantityUnit(symbol: "kW", dimension: .power, factor: 1000)
    /// Metres per second. Canonical for `.speed`.
    public static let metrePerSecond = QuantityUnit(symbol: "m/s", dimension: .speed, factor: 1)
    public static let kilometrePerHour = QuantityUnit(symbol: "km/h", dimension: .speed, factor: 1 / 3.6)
    /// Seconds. Canonical for `.time`.
    public static let second = QuantityUnit(symbol: "s", dimension: .time, factor: 1)
    public static let millisecond = QuantityUnit(symbol: "ms", dimension: .time, factor: 0.001)
    /// Kilojoules. Canonical for `.energy`.
    public static let kilojoule = QuantityUnit(symbol: "kJ", dimension: .energy, factor: 1)
    public static let kilocalorie = QuantityUnit(symbol: "kcal", dimension: .energy, factor: 4.184)
    /// Percent. Canonical for `.ratio`.
    public static let percent = QuantityUnit(symbol: "%", dimension: .ratio, factor: 1)

    /// Every unit this package knows, for parsing unit strings.
    public static let known: [QuantityUnit] = [
        .countPerMinute, .revolutionsPerMinute, .watt, .kilowatt, .metrePerSecond, .kilometrePerHour,
        .second, .millisecond, .kilojoule, .kilocalorie, .percent,
    ]

    /// Looks a unit up by its symbol (`count/min`, `bpm` as an alias, `W`, `kW`, ...).
    public init?(symbol: String) {
        let alias = symbol == "bpm" ? "count/min" : symbol
        guard let unit = QuantityUnit.known.first(where: { $0.symbol == alias }) else { return nil }
        self = unit
    }
}

/// A value with its unit, as HealthKit's `HKQuantity`.
public struct Quantity: Sendable, Hashable, Codable, CustomStringConvertible {
    public let value: Double
    public let unit: QuantityUnit

    public init(_ value: Double, _ unit: QuantityUnit) {
        self.value = value
        self.unit = unit
    }

    /// Whether this quantity converts into `other` (same dimension).
    public func isCompatible(with other: QuantityUnit) -> Bool { unit.dimension == other.dimension }

    /// The value expressed in `target`, or nil when the dimensions differ.
    public func value(in target: QuantityUnit) -> Double? {
        guard isCompatible(with: target) else { return nil }
        if target == unit { return value }
        return value * unit.factor / target.factor
    }

    public var description: String { "\(value) \(unit.symbol)" }
}
