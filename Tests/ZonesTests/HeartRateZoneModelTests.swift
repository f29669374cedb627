import SensorCore
import Testing
import Zones

/// The %HRmax and %LTHR heart-rate models beside heart-rate reserve: exact boundaries, what each
/// needs, and the preferences choosing one.
@Suite struct HeartRateZoneModelTests {
    @Test func percentOfMaximumFromAMeasuredOrEstimatedMaximum() throws {
        // 60, 70, 80 and 90 % of 180: 108, 126, 144, 162 (all whole).
        let measured = try AthleteProfile(maximumHeartRate: 180).heartRateZoneConfiguration(model: .maximum)
        #expect(measured.boundaryValues == [108, 126, 144, 162])
        #expect(measured.zones.count == 5 && measured.source == .system)
        // Age 40 gives Tanaka's 180 too; no resting heart rate is needed.
        #expect(try AthleteProfile(age: 40).heartRateZoneConfiguration(model: .maximum).boundaryValues == [108, 126, 144, 162])
        // Age 33: 208 - 23.1 = 184.9; 110.94, 129.43, 147.92, 166.41 round to 111, 129, 148, 166.
        #expect(try AthleteProfile(age: 33).heartRateZoneConfiguration(model: .maximum).boundaryValues == [111, 129, 148, 166])
        // 185: 111, 129.5, 148, 166.5; halves away from zero: 130 and 167.
        #expect(try AthleteProfile(maximumHeartRate: 185).heartRateZoneConfiguration(model: .maximum).boundaryValues
            == [111, 130, 148, 167])
        #expect(throws: ZoneProfileError.missingAge) { try AthleteProfile(restingHeartRate: 50).heartRateZoneConfiguration(model: .maximum) }
    }

    @Test func frielPercentOfLactateThreshold() throws {
        // 81, 90, 94, 100, 103, 106 % of 165: 133.65, 148.5, 155.1, 165, 169.95, 174.9
        // round to 134, 149 (a half, away from zero), 155, 165, 170, 175.
        let configuration = try AthleteProfile(lactateThresholdHeartRate: 165).heartRateZoneConfiguration(model: .lactateThreshold)
        #expect(configuration.boundaryValues == [134, 149, 155, 165, 170, 175])
        #expect(configuration.zones.count == 7)
        #expect(HeartRateZoneModel.lactateThreshold.zoneNames == ["1", "2", "3", "4", "5a", "5b", "5c"])
        // 150: 121.5, 135, 141, 150, 154.5, 159 -> 122, 135, 141, 150, 155, 159.
        #expect(try AthleteProfile(lactateThresholdHeartRate: 150).heartRateZoneConfiguration(model: .lactateThreshold)
            .boundaryValues == [122, 135, 141, 150, 155, 159])
        // The model needs the LTHR and nothing else.
        #expect(throws: ZoneProfileError.missingLactateThresholdHeartRate) {
            try AthleteProfile(age: 40, restingHeartRate: 50, maximumHeartRate: 185).heartRateZoneConfiguration(model: .lactateThreshold)
        }
        #expect(throws: ZoneProfileError.outOfRange(.lactateThresholdHeartRate, value: 251, allowed: 20...250)) {
            try AthleteProfile(lactateThresholdHeartRate: 251).heartRateZoneConfiguration(model: .lactateThreshold)
        }
        #expect(ZoneProfileError.missingLactateThresholdHeartRate.description.contains("lactate-threshold heart rate"))
    }

    /// Every heart rate the profile accepts gives strictly increasing boundaries in every model, or
    /// (an LTHR below 25, where 103 and 106 % round alike) a typed error: never a configuration
    /// whose zones are not distinct.
    @Test func everyAcceptedValueGivesDistinctZonesOrSaysWhy() throws {
        for value in AthleteProfile.heartRateRange {
            let maximum = try AthleteProfile(maximumHeartRate: value).heartRateZoneConfiguration(model: .maximum)
            #expect(zip(maximum.boundaryValues, maximum.boundaryValues.dropFirst()).allSatisfy { $0 < $1 }, "\(value)")
            let profile = AthleteProfile(lactateThresholdHeartRate: value)
            if value < AthleteProfile.minimumLactateThresholdHeartRate {
                #expect(throws: ZoneProfileError.lactateThresholdTooLow(value, least: 25)) {
                    try profile.heartRateZoneConfiguration(model: .lactateThreshold)
                }
            } else {
                let boundaries = try profile.heartRateZoneConfiguration(model: .lactateThreshold).boundaryValues
                #expect(boundaries.count == 6 && zip(boundaries, boundaries.dropFirst()).allSatisfy { $0 < $1 }, "\(value)")
            }
        }
    }

    @Test func preferencesUseTheirHeartRateModel() throws {
        var preferences = ZonePreferences(
            profile: AthleteProfile(age: 40, restingHeartRate: 50, lactateThresholdHeartRate: 165))
        #expect(preferences.heartRateZoneModel == .reserve)
        #expect(preferences.zoneConfiguration(for: .heartRate)?.boundaryValues == [128, 141, 154, 167])
        preferences.heartRateZoneModel = .maximum
        #expect(preferences.zoneConfiguration(for: .heartRate)?.boundaryValues == [108, 126, 144, 162])
        preferences.heartRateZoneModel = .lactateThreshold
        #expect(try preferences.systemConfiguration(for: .heartRate).boundaryValues == [134, 149, 155, 165, 170, 175])
        preferences.profile.lactateThresholdHeartRate = nil
        #expect(preferences.zoneConfiguration(for: .heartRate) == nil)
        #expect(throws: ZoneProfileError.missingLactateThresholdHeartRate) { try preferences.systemConfiguration(for: .heartRate) }
        #expect(HeartRateZoneModel(rawValue: "max") == .maximum && HeartRateZoneModel(rawValue: "lthr") == .lactateThreshold)
    }
}
