public import SensorCore

/// The zones of one quantity type, as HealthKit's `HKWorkoutZoneConfiguration` (DESIGN.md §3 "Zones").
///
/// 2 to 8 strictly increasing, finite, positive boundaries make 3 to 9 contiguous zones. Zone 0
/// has no lower bound (negative watts land in it), the last zone no upper bound, and a value `v`
/// belongs to the zone with `minimum <= v < maximum`. Boundaries are kept in the quantity type's
/// canonical unit (count/min, W): a configuration given in kW equals the same one given in W.
public struct WorkoutZoneConfiguration: Sendable, Hashable {
    /// What the zones measure: `.heartRate` or `.cyclingPower`.
    public let quantityType: QuantityType
    /// Where the configuration came from.
    public private(set) var source: WorkoutZoneSource
    /// The zones, low to high; `zones[i].index == i`. (The only array stored, so that copying a
    /// configuration into every zone update costs one reference count.)
    public let zones: [WorkoutZone]

    /// Makes zones from 2...8 boundaries, each in a unit of `quantityType` (count/min for heart rate;
    /// W, kW for cycling power).
    ///
    /// - Throws: `WorkoutZoneConfigurationError` naming the first thing wrong: the quantity type, the
    ///   count, then boundary by boundary its unit, finiteness, sign and order.
    public init(
        quantityType: QuantityType, zoneBoundaries: [Quantity], source: WorkoutZoneSource = .custom
    ) throws(WorkoutZoneConfigurationError) {
        guard quantityType == .heartRate || quantityType == .cyclingPower else {
            throw .unsupportedQuantityType(quantityType)
        }
        guard (2...8).contains(zoneBoundaries.count) else { throw .boundaryCount(zoneBoundaries.count) }
        let unit = quantityType.canonicalUnit
        var values: [Double] = []
        values.reserveCapacity(zoneBoundaries.count)
        for (index, boundary) in zoneBoundaries.enumerated() {
            guard Self.unit(boundary.unit, measures: quantityType), let value = boundary.value(in: unit) else {
                throw .incompatibleUnit(index: index, boundary: boundary, quantityType: quantityType)
            }
            guard value.isFinite else { throw .notFinite(index: index, boundary: boundary) }
            guard value > 0 else { throw .notPositive(index: index, boundary: boundary) }
            if let previous = values.last, value <= previous {
                throw .notIncreasing(index: index, boundary: boundary, previous: zoneBoundaries[index - 1])
            }
            values.append(value)
        }
        self.init(quantityType: quantityType, checkedBoundaryValues: values, source: source)
    }

    /// For boundaries known to be valid: 2...8 finite, positive, increasing values in the canonical unit.
    init(quantityType: QuantityType, checkedBoundaryValues values: [Double], source: WorkoutZoneSource) {
        let unit = quantityType.canonicalUnit
        self.quantityType = quantityType
        self.source = source
        self.zones = (0...values.count).map { index in
            WorkoutZone(
                index: index,
                minimum: index == 0 ? nil : Quantity(values[index - 1], unit),
                maximum: index == values.count ? nil : Quantity(values[index], unit))
        }
    }

    /// Makes zones from boundaries in the quantity type's canonical unit (count/min, W).
    public init(
        quantityType: QuantityType, boundaryValues: [Double], source: WorkoutZoneSource = .custom
    ) throws(WorkoutZoneConfigurationError) {
        let unit = quantityType.canonicalUnit
        try self.init(quantityType: quantityType, zoneBoundaries: boundaryValues.map { Quantity($0, unit) }, source: source)
    }

    /// The canonical unit of the boundaries: count/min for heart rate, W for cycling power.
    public var unit: QuantityUnit { quantityType.canonicalUnit }

    /// The boundaries in `unit`, strictly increasing: zone `i` is `[boundaryValues[i-1], boundaryValues[i])`.
    public var boundaryValues: [Double] { zones.compactMap { $0.maximum?.value } }

    /// The boundaries as quantities in `unit`.
    public var zoneBoundaries: [Quantity] { zones.compactMap(\.maximum) }

    /// The same zones with another source (a preferred configuration is `.user`, for example).
    public func withSource(_ source: WorkoutZoneSource) -> WorkoutZoneConfiguration {
        var copy = self
        copy.source = source
        return copy
    }

    /// Whether `other` has the same quantity type and boundaries, whatever its source.
    public func hasSameZones(as other: WorkoutZoneConfiguration) -> Bool {
        quantityType == other.quantityType && zones == other.zones
    }

    /// The index of the zone holding `value` (in `unit`): the number of boundaries `<= value`.
    /// Nil for NaN, which belongs to no zone.
    public func zoneIndex(for value: Double) -> Int? {
        guard !value.isNaN else { return nil }
        var index = 0
        while let maximum = zones[index].maximum, value >= maximum.value { index += 1 }
        return index
    }

    /// The zone holding `quantity`, or nil when its unit does not convert to `unit` or it is NaN.
    public func zone(containing quantity: Quantity) -> WorkoutZone? {
        guard let value = quantity.value(in: unit), let index = zoneIndex(for: value) else { return nil }
        return zones[index]
    }

    /// Whether boundaries in `unit` can describe `quantityType`: count/min (not rpm) for heart rate,
    /// any power unit for cycling power.
    private static func unit(_ unit: QuantityUnit, measures quantityType: QuantityType) -> Bool {
        switch quantityType {
        case .heartRate: unit.dimension == .frequency && unit != .revolutionsPerMinute
        case .cyclingPower: unit.dimension == .power
        default: false
        }
    }
}

extension WorkoutZoneConfiguration {
    /// `{"source": "system", "unit": "count/min", "zones": [{"index": 0, "minimum": null, "maximum": 128}, ...]}`,
    /// bounds in `unit`, null where unbounded. The shape `sensorbridge zones` and `replay` print.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object.append("source", .string(source.rawValue))
        object.append("unit", .string(unit.symbol))
        object.append(
            "zones",
            .array(
                zones.map { zone in
                    var entry = JSONObject()
                    entry.append("index", .number(Double(zone.index)))
                    entry.append("minimum", zone.minimum.map { .number($0.value) } ?? .null)
                    entry.append("maximum", zone.maximum.map { .number($0.value) } ?? .null)
                    return .object(entry)
                }))
        return .object(object)
    }
}
