import SensorCore
import Testing
import Zones

@Suite struct AthleteProfileTests {
    @Test func heartRateReserveFromTanakaMaximum() throws {
        // Age 40: maximum 208 - 0.7 x 40 = 180; reserve 180 - 50 = 130.
        // 50 + 0.6 x 130 = 128, + 0.7 x 130 = 141, + 0.8 x 130 = 154, + 0.9 x 130 = 167 (all whole).
        let configuration = try AthleteProfile(age: 40, restingHeartRate: 50).heartRateZoneConfiguration()
        #expect(configuration.quantityType == .heartRate)
        #expect(configuration.source == .system)
        #expect(configuration.boundaryValues == [128, 141, 154, 167])
        #expect(try AthleteProfile(age: 40).maximumHeartRate() == 180)
    }

    @Test func tanakaMaximumIsNotRoundedBeforeTheBoundaries() throws {
        // Age 33: maximum 208 - 23.1 = 184.9; reserve 134.9.
        // 50 + 80.94 = 130.94 -> 131; 50 + 94.43 = 144.43 -> 144; 50 + 107.92 = 157.92 -> 158;
        // 50 + 121.41 = 171.41 -> 171. (Rounding the maximum to 185 first would give 145 and 172.)
        let profile = AthleteProfile(age: 33, restingHeartRate: 50)
        #expect(try profile.maximumHeartRate() == 184.9)
        #expect(try profile.heartRateZoneConfiguration().boundaryValues == [131, 144, 158, 171])
    }

    @Test func halvesRoundAwayFromZero() throws {
        // Measured maximum 185, resting 50: reserve 135.
        // 50 + 81 = 131; 50 + 94.5 = 144.5 -> 145; 50 + 108 = 158; 50 + 121.5 = 171.5 -> 172.
        let heartRate = try AthleteProfile(restingHeartRate: 50, maximumHeartRate: 185).heartRateZoneConfiguration()
        #expect(heartRate.boundaryValues == [131, 145, 158, 172])
        // FTP 250: 137.5 -> 138, 187.5 -> 188, 225, 262.5 -> 263, 300, and 375 for Coggan's seventh zone.
        let profile = AthleteProfile(functionalThresholdPower: 250)
        let six = try profile.cyclingPowerZoneConfiguration()
        #expect(six.quantityType == .cyclingPower)
        #expect(six.source == .system)
        #expect(six.boundaryValues == [138, 188, 225, 263, 300])
        #expect(try profile.cyclingPowerZoneConfiguration(model: .sevenZones).boundaryValues
            == [138, 188, 225, 263, 300, 375])
        // FTP 230: 126.5 -> 127, 172.5 -> 173, 207, 241.5 -> 242, 276.
        #expect(try AthleteProfile(functionalThresholdPower: 230).cyclingPowerZoneConfiguration().boundaryValues
            == [127, 173, 207, 242, 276])
    }

    @Test func aMeasuredMaximumWinsOverTheAge() throws {
        // Age 40 would estimate 180; the measured 190 gives reserve 140: 134, 148, 162, 176.
        let profile = AthleteProfile(age: 40, restingHeartRate: 50, maximumHeartRate: 190)
        #expect(try profile.heartRateZoneConfiguration().boundaryValues == [134, 148, 162, 176])
    }

    @Test func missingDataIsATypedErrorThatSaysWhatIsNeeded() {
        #expect(throws: ZoneProfileError.missingRestingHeartRate) {
            try AthleteProfile(age: 40).heartRateZoneConfiguration()
        }
        #expect(throws: ZoneProfileError.missingAge) {
            try AthleteProfile(restingHeartRate: 50).heartRateZoneConfiguration()
        }
        #expect(throws: ZoneProfileError.missingFunctionalThresholdPower) {
            try AthleteProfile(age: 40, restingHeartRate: 50).cyclingPowerZoneConfiguration()
        }
        #expect(ZoneProfileError.missingAge.description.contains("age or a birth date"))
        #expect(ZoneProfileError.missingFunctionalThresholdPower.description.contains("(FTP)"))
    }

    @Test func implausibleValuesAreRejected() throws {
        #expect(throws: ZoneProfileError.outOfRange(.age, value: -3, allowed: 1...120)) {
            try AthleteProfile(age: -3, restingHeartRate: 50).heartRateZoneConfiguration()
        }
        #expect(throws: ZoneProfileError.outOfRange(.restingHeartRate, value: 0, allowed: 20...250)) {
            try AthleteProfile(age: 40, restingHeartRate: 0).heartRateZoneConfiguration()
        }
        #expect(throws: ZoneProfileError.outOfRange(.functionalThresholdPower, value: 5, allowed: 20...2500)) {
            try AthleteProfile(functionalThresholdPower: 5).cyclingPowerZoneConfiguration()
        }
        // Resting 175 against an estimated 180 leaves 5 bpm of reserve: the zones would collapse.
        #expect(throws: ZoneProfileError.heartRateReserveTooSmall(resting: 175, maximum: 180)) {
            try AthleteProfile(age: 40, restingHeartRate: 175).heartRateZoneConfiguration()
        }
        #expect(throws: ZoneProfileError.heartRateReserveTooSmall(resting: 190, maximum: 180)) {
            try AthleteProfile(restingHeartRate: 190, maximumHeartRate: 180).heartRateZoneConfiguration()
        }
        // Exactly the minimum reserve still gives five distinct zones: 176, 177, 178, 179.
        #expect(try AthleteProfile(restingHeartRate: 170, maximumHeartRate: 180).heartRateZoneConfiguration()
            .boundaryValues == [176, 177, 178, 179])
    }

    @Test func aBirthDateGivesTheAgeOnTheDayOfTheZones() throws {
        let birthDate = try #require(CalendarDate(iso8601: "1985-06-15"))
        let profile = AthleteProfile(birthDate: birthDate, age: 99, restingHeartRate: 50)
        // The day before the 40th birthday the person is 39: maximum 208 - 27.3 = 180.7.
        #expect(try profile.age(on: CalendarDate(year: 2025, month: 6, day: 14)) == 39)
        #expect(try profile.age(on: CalendarDate(year: 2025, month: 6, day: 15)) == 40)
        #expect(try profile.heartRateZoneConfiguration(on: CalendarDate(year: 2025, month: 6, day: 15)).boundaryValues
            == [128, 141, 154, 167])
        #expect(throws: ZoneProfileError.missingDate) { try profile.heartRateZoneConfiguration() }
        let before = try #require(CalendarDate(year: 1980, month: 1, day: 1))
        #expect(throws: ZoneProfileError.birthDateAfterDate(birthDate: birthDate, date: before)) {
            try profile.age(on: before)
        }
    }

    @Test func preferencesAnswerPreferredThenSystemThenNil() throws {
        var preferences = ZonePreferences(profile: AthleteProfile(age: 40, restingHeartRate: 50))
        #expect(preferences.zoneConfiguration(for: .heartRate)?.boundaryValues == [128, 141, 154, 167])
        #expect(preferences.zoneConfiguration(for: .heartRate)?.source == .system)
        // No FTP: no power zones, and the throwing variant says why.
        #expect(preferences.zoneConfiguration(for: .cyclingPower) == nil)
        #expect(throws: ZoneProfileError.missingFunctionalThresholdPower) {
            try preferences.systemConfiguration(for: .cyclingPower)
        }
        #expect(throws: ZoneProfileError.noDefaultModel(.cyclingCadence)) {
            try preferences.systemConfiguration(for: .cyclingCadence)
        }

        let mine = try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [120, 140, 160])
        preferences.setPreferredConfiguration(mine)
        let preferred = try #require(preferences.zoneConfiguration(for: .heartRate))
        #expect(preferred.source == .user)
        #expect(preferred.hasSameZones(as: mine))

        preferences.profile.functionalThresholdPower = 250
        preferences.powerZoneModel = .sevenZones
        #expect(preferences.zoneConfiguration(for: .cyclingPower)?.zones.count == 7)

        preferences.removePreferredConfiguration(for: .heartRate)
        #expect(preferences.zoneConfiguration(for: .heartRate)?.source == .system)
    }
}

@Suite struct CalendarDateTests {
    @Test func parsesOnlyRealDaysInISOForm() {
        #expect(CalendarDate(iso8601: "2024-02-29")?.description == "2024-02-29")
        #expect(CalendarDate(iso8601: "2000-02-29") != nil)
        #expect(CalendarDate(iso8601: "1900-02-29") == nil)
        #expect(CalendarDate(iso8601: "2023-02-29") == nil)
        #expect(CalendarDate(iso8601: "2023-04-31") == nil)
        #expect(CalendarDate(iso8601: "2023-13-01") == nil)
        #expect(CalendarDate(iso8601: "2023-1-01") == nil)
        #expect(CalendarDate(iso8601: "23-01-01") == nil)
        #expect(CalendarDate(iso8601: "2023-01-01T00:00") == nil)
        #expect(CalendarDate(iso8601: "2023/01/01") == nil)
        #expect(CalendarDate(iso8601: "+023-01-01") == nil)
        #expect(CalendarDate(year: 7, month: 3, day: 9)?.description == "0007-03-09")
    }

    @Test func wholeYearsCountAnniversaries() throws {
        let leapling = try #require(CalendarDate(iso8601: "2000-02-29"))
        #expect(leapling.wholeYears(until: try #require(CalendarDate(iso8601: "2001-02-28"))) == 0)
        #expect(leapling.wholeYears(until: try #require(CalendarDate(iso8601: "2001-03-01"))) == 1)
        #expect(leapling.wholeYears(until: try #require(CalendarDate(iso8601: "2004-02-29"))) == 4)
        #expect(leapling.wholeYears(until: leapling) == 0)
        #expect(leapling.wholeYears(until: try #require(CalendarDate(iso8601: "1999-03-01"))) == -1)
    }
}
