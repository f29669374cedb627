import SensorCore
import Testing
import Zones

@Suite struct WorkoutZoneConfigurationTests {
    @Test func zonesDescribeTheirBoundsExactly() throws {
        let configuration = try WorkoutZoneConfiguration(
            quantityType: .heartRate, boundaryValues: [120, 127.5, 150])
        #expect(configuration.zones.map { $0.rangeText(unit: "bpm") } == [
            "< 120 bpm", "120-127.5 bpm", "127.5-150 bpm", ">= 150 bpm",
        ])
    }

    static let bpm = QuantityUnit.countPerMinute

    func heartRate(_ values: [Double]) throws(WorkoutZoneConfigurationError) -> WorkoutZoneConfiguration {
        try WorkoutZoneConfiguration(quantityType: .heartRate, zoneBoundaries: values.map { Quantity($0, Self.bpm) })
    }

    @Test func zonesAreContiguousWithOpenEnds() throws {
        let configuration = try heartRate([128, 141, 154, 167])
        #expect(configuration.zones.count == 5)
        #expect(configuration.source == .custom)
        #expect(configuration.zones.map(\.index) == [0, 1, 2, 3, 4])
        #expect(configuration.zones[0].minimum == nil)
        #expect(configuration.zones[0].maximum == Quantity(128, Self.bpm))
        #expect(configuration.zones[2].minimum == Quantity(141, Self.bpm))
        #expect(configuration.zones[2].maximum == Quantity(154, Self.bpm))
        #expect(configuration.zones[4].minimum == Quantity(167, Self.bpm))
        #expect(configuration.zones[4].maximum == nil)
        for (lower, upper) in zip(configuration.zones, configuration.zones.dropFirst()) {
            #expect(lower.maximum == upper.minimum)
        }
    }

    @Test func aValueExactlyOnABoundaryBelongsToTheUpperZone() throws {
        let configuration = try heartRate([128, 141, 154, 167])
        #expect(configuration.zoneIndex(for: 127.999_999) == 0)
        #expect(configuration.zoneIndex(for: 128) == 1)
        #expect(configuration.zoneIndex(for: 140.999_999) == 1)
        #expect(configuration.zoneIndex(for: 141) == 2)
        #expect(configuration.zoneIndex(for: 167) == 4)
        #expect(configuration.zones[1].contains(Quantity(128, Self.bpm)))
        #expect(!configuration.zones[0].contains(Quantity(128, Self.bpm)))
        #expect(!configuration.zones[1].contains(Quantity(141, Self.bpm)))
    }

    @Test func negativeWattsAndExtremesLandInTheOuterZones() throws {
        let power = try WorkoutZoneConfiguration(quantityType: .cyclingPower, boundaryValues: [138, 188, 225, 263, 300])
        #expect(power.zoneIndex(for: -42) == 0)
        #expect(power.zone(containing: Quantity(-42, .watt))?.index == 0)
        #expect(power.zoneIndex(for: -.infinity) == 0)
        #expect(power.zoneIndex(for: 0) == 0)
        #expect(power.zoneIndex(for: 2000) == 5)
        #expect(power.zoneIndex(for: .infinity) == 5)
        #expect(power.zoneIndex(for: .nan) == nil)
        #expect(power.zone(containing: Quantity(.nan, .watt)) == nil)
        #expect(!power.zones.contains { $0.contains(Quantity(.nan, .watt)) })
    }

    @Test func threeAndNineZonesAreAccepted() throws {
        #expect(try heartRate([120, 150]).zones.count == 3)
        #expect(try heartRate([100, 110, 120, 130, 140, 150, 160, 170]).zones.count == 9)
    }

    @Test(arguments: [0, 1, 9, 10])
    func otherBoundaryCountsAreRejected(count: Int) {
        let values = (0..<count).map { 100 + 10 * Double($0) }
        #expect(throws: WorkoutZoneConfigurationError.boundaryCount(count)) { try heartRate(values) }
    }

    @Test func twoAndTenZonesAreRejectedWithACountMessage() {
        #expect(throws: WorkoutZoneConfigurationError.self) { try heartRate([150]) }
        do {
            _ = try heartRate((0..<9).map { 100 + 10 * Double($0) })
            Issue.record("nine boundaries were accepted")
        } catch {
            #expect(error.description == "a zone configuration needs 2 to 8 boundaries (3 to 9 zones), not 9")
        }
    }

    @Test func boundariesMustBeStrictlyIncreasing() {
        #expect(throws: WorkoutZoneConfigurationError.notIncreasing(
            index: 2, boundary: Quantity(141, Self.bpm), previous: Quantity(141, Self.bpm))) {
            try heartRate([128, 141, 141, 167])
        }
        do {
            _ = try heartRate([128, 150, 141])
            Issue.record("decreasing boundaries were accepted")
        } catch {
            #expect(error.description
                == "boundary 3 (141 count/min) is not greater than boundary 2 (150 count/min); boundaries must be strictly increasing")
        }
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteBoundariesAreRejected(value: Double) {
        #expect(throws: WorkoutZoneConfigurationError.self) { try heartRate([120, value, 160]) }
        do {
            _ = try heartRate([120, value, 160])
        } catch {
            guard case .notFinite(index: 1, boundary: _) = error else {
                Issue.record("expected notFinite at index 1, got \(error)")
                return
            }
            #expect(error.description.hasPrefix("boundary 2 is "))
            #expect(error.description.hasSuffix("; boundaries must be finite numbers"))
        }
    }

    @Test func zeroAndNegativeBoundariesAreRejected() {
        #expect(throws: WorkoutZoneConfigurationError.notPositive(index: 0, boundary: Quantity(0, .watt))) {
            try WorkoutZoneConfiguration(quantityType: .cyclingPower, boundaryValues: [0, 100])
        }
        #expect(throws: WorkoutZoneConfigurationError.notPositive(index: 0, boundary: Quantity(-50, .watt))) {
            try WorkoutZoneConfiguration(quantityType: .cyclingPower, boundaryValues: [-50, 100])
        }
    }

    @Test func unitsMustMeasureTheQuantityType() {
        #expect(throws: WorkoutZoneConfigurationError.incompatibleUnit(
            index: 0, boundary: Quantity(150, .watt), quantityType: .heartRate)) {
            try WorkoutZoneConfiguration(
                quantityType: .heartRate, zoneBoundaries: [Quantity(150, .watt), Quantity(160, Self.bpm)])
        }
        // rpm has the dimension of count/min but is a cadence, not a heart rate.
        #expect(throws: WorkoutZoneConfigurationError.incompatibleUnit(
            index: 1, boundary: Quantity(160, .revolutionsPerMinute), quantityType: .heartRate)) {
            try WorkoutZoneConfiguration(
                quantityType: .heartRate,
                zoneBoundaries: [Quantity(150, Self.bpm), Quantity(160, .revolutionsPerMinute)])
        }
        do throws(WorkoutZoneConfigurationError) {
            _ = try WorkoutZoneConfiguration(
                quantityType: .cyclingPower, zoneBoundaries: [Quantity(150, Self.bpm), Quantity(200, .watt)])
            Issue.record("count/min boundaries for power were accepted")
        } catch {
            #expect(error.description
                == "boundary 1 is 150 count/min, which is not a unit of cyclingPower; give cyclingPower boundaries in W or kW")
        }
    }

    @Test func onlyHeartRateAndCyclingPowerHaveZones() {
        #expect(throws: WorkoutZoneConfigurationError.unsupportedQuantityType(.cyclingCadence)) {
            try WorkoutZoneConfiguration(quantityType: .cyclingCadence, boundaryValues: [60, 90])
        }
    }

    @Test func kilowattsConvertToWatts() throws {
        let inKilowatts = try WorkoutZoneConfiguration(
            quantityType: .cyclingPower,
            zoneBoundaries: [Quantity(0.15, .kilowatt), Quantity(200, .watt), Quantity(0.25, .kilowatt)])
        let inWatts = try WorkoutZoneConfiguration(quantityType: .cyclingPower, boundaryValues: [150, 200, 250])
        #expect(inKilowatts == inWatts)
        #expect(inKilowatts.unit == .watt)
        #expect(inKilowatts.zones[1].minimum == Quantity(150, .watt))
        #expect(inKilowatts.zone(containing: Quantity(0.2, .kilowatt))?.index == 2)
        #expect(inKilowatts.zones[2].contains(Quantity(0.2, .kilowatt)))
        #expect(inKilowatts.zone(containing: Quantity(200, Self.bpm)) == nil)
        // Order is compared after conversion: 0.2 kW is not above 200 W.
        #expect(throws: WorkoutZoneConfigurationError.self) {
            try WorkoutZoneConfiguration(
                quantityType: .cyclingPower, zoneBoundaries: [Quantity(200, .watt), Quantity(0.2, .kilowatt)])
        }
    }

    @Test func sourceIsKeptApartFromTheZones() throws {
        let custom = try heartRate([128, 141, 154, 167])
        let user = custom.withSource(.user)
        #expect(user.source == .user)
        #expect(user != custom)
        #expect(user.hasSameZones(as: custom))
        #expect(!user.hasSameZones(as: try heartRate([128, 141, 154, 168])))
        #expect(user.boundaryValues == [128, 141, 154, 167])
        #expect(user.zoneBoundaries == [128, 141, 154, 167].map { Quantity($0, Self.bpm) })
    }

    @Test func jsonListsZonesWithNullForOpenEnds() throws {
        let configuration = try heartRate([128, 141])
        #expect(configuration.jsonValue.serialized
            == #"{"source":"custom","unit":"count/min","zones":[{"index":0,"minimum":null,"maximum":128},"#
            + #"{"index":1,"minimum":128,"maximum":141},{"index":2,"minimum":141,"maximum":null}]}"#)
    }
}
