import SensorCore
import Testing
import Zones

/// Zones a person gives must be ones a person could have: the rule, its reasons, and preferences
/// refusing the rest.
@Suite struct ZonePlausibilityTests {
    @Test(arguments: [
        ([120.0, 140, 155, 170], nil),
        ([30, 250], nil),  // the ends of the range
        ([120, 121], nil),  // exactly 1 apart
        ([1, 2], ZonePlausibilityError.heartRateOutOfRange(index: 0, value: 1)),
        ([0.5, 100_000], .heartRateOutOfRange(index: 0, value: 0.5)),
        ([120, 100_000], .heartRateOutOfRange(index: 1, value: 100_000)),
        ([29.9, 120], .heartRateOutOfRange(index: 0, value: 29.9)),
        ([120, 250.5], .heartRateOutOfRange(index: 1, value: 250.5)),
        ([-5, 120], .heartRateOutOfRange(index: 0, value: -5)),
        ([120, .nan], .heartRateOutOfRange(index: 1, value: .nan)),
        ([120, 120.5], .tooClose(.heartRate, index: 1, value: 120.5, previous: 120)),
        ([120, 140, 140], .tooClose(.heartRate, index: 2, value: 140, previous: 140)),
        ([150, 140], .tooClose(.heartRate, index: 1, value: 140, previous: 150)),
    ] as [([Double], ZonePlausibilityError?)])
    func heartRate(boundaries: [Double], refused: ZonePlausibilityError?) {
        let result = Result { () throws(ZonePlausibilityError) in
            try ZonePlausibility.check(.heartRate, boundaryValues: boundaries)
        }
        switch (result, refused) {
        case (.success, nil): break
        case (.failure(let error), let expected?):
            // NaN is not equal to itself: compare the descriptions, which carry the values.
            #expect(error.description == expected.description)
        default: Issue.record("\(boundaries): \(result), expected \(String(describing: refused))")
        }
    }

    @Test(arguments: [
        ([150.0, 200, 250, 300], nil),
        ([0.5, 1.5], nil),  // positive and 1 apart: a rule for people, not for sense
        ([100, 3000], nil),
        ([0, 100], ZonePlausibilityError.powerNotPositive(index: 0, value: 0)),
        ([-5, 100], .powerNotPositive(index: 0, value: -5)),
        ([100, 3000.5], .powerTooHigh(index: 1, value: 3000.5)),
        ([100, 100_000], .powerTooHigh(index: 1, value: 100_000)),
        ([200, 200.9], .tooClose(.cyclingPower, index: 1, value: 200.9, previous: 200)),
    ] as [([Double], ZonePlausibilityError?)])
    func power(boundaries: [Double], refused: ZonePlausibilityError?) {
        let result = Result { () throws(ZonePlausibilityError) in
            try ZonePlausibility.check(.cyclingPower, boundaryValues: boundaries)
        }
        switch (result, refused) {
        case (.success, nil): break
        case (.failure(let error), let expected?): #expect(error == expected)
        default: Issue.record("\(boundaries): \(result), expected \(String(describing: refused))")
        }
    }

    @Test func reasonsSayWhatToGive() {
        #expect(
            ZonePlausibilityError.heartRateOutOfRange(index: 0, value: -5).description
                == "boundary 1 is -5 bpm, which no heart-rate zone starts at; give heart-rate boundaries from 30 to 250 bpm, "
                + "such as 120,140,155,170")
        #expect(
            ZonePlausibilityError.powerTooHigh(index: 1, value: 100_000).description
                == "boundary 2 is 100000 W, above the 3000 W no rider holds as a zone; give power boundaries in W (not mW), "
                + "such as 150,200,250,300")
        #expect(
            ZonePlausibilityError.tooClose(.heartRate, index: 1, value: 120.5, previous: 120).description
                == "boundary 2 (120.5) is less than 1 bpm above boundary 1 (120); give increasing boundaries at least 1 apart")
        #expect(throws: ZonePlausibilityError.noZones(.cyclingCadence)) {
            try ZonePlausibility.check(.cyclingCadence, boundaryValues: [80, 90])
        }
    }

    /// Preferences take a person's zones only when plausible, and are unchanged otherwise; a
    /// configuration in kW is checked in W.
    @Test func preferencesRefuseImplausibleUserZones() throws {
        var preferences = ZonePreferences()
        try preferences.setUserConfiguration(try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [120, 140]))
        #expect(preferences.preferredConfigurations[.heartRate]?.source == .user)
        let tiny = try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [1, 2])
        #expect(throws: ZonePlausibilityError.heartRateOutOfRange(index: 0, value: 1)) { try preferences.setUserConfiguration(tiny) }
        #expect(preferences.preferredConfigurations[.heartRate]?.boundaryValues == [120, 140])
        let kilowatts = try WorkoutZoneConfiguration(
            quantityType: .cyclingPower, zoneBoundaries: [Quantity(0.15, .kilowatt), Quantity(3.5, .kilowatt)])
        #expect(throws: ZonePlausibilityError.powerTooHigh(index: 1, value: 3500)) { try preferences.setUserConfiguration(kilowatts) }
        #expect(preferences.preferredConfigurations[.cyclingPower] == nil)
    }
}
