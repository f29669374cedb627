import Foundation
import Testing
import Workouts
@testable import WorkoutStore
import Zones

/// Athletes (migration 10): each with their own profile, preferred zones and sensors; workouts
/// keep their athlete's name.
@Suite struct AthleteTests {
    let store: WorkoutStore
    let anna = AthleteName(rawValue: "Anna")!
    let ben = AthleteName(rawValue: "Ben")!

    init() throws {
        store = try WorkoutStore(path: WorkoutStore.inMemoryPath)
    }

    /// What the athlete tests check, on each backend.
    @Test(arguments: StoreBackend.available)
    func athletesMeanTheSameOnEachBackend(_ backend: StoreBackend) throws {
        let store = try backend.emptyStore()
        try store.addAthlete(anna, preferences: try Self.preferences(age: 30, ftp: 250, heartRateZones: [120, 140, 155, 170]))
        try store.addAthlete(ben, preferences: try Self.preferences(age: 50, ftp: 200))
        #expect(throws: WorkoutStoreError.athleteExists("Anna")) { try store.addAthlete(AthleteName(rawValue: "ANNA")!, preferences: ZonePreferences()) }
        let emile = AthleteName(rawValue: "Émile")!
        try store.addAthlete(emile, preferences: ZonePreferences())
        // É and é are one letter in two cases (on both): the same athlete.
        #expect(throws: WorkoutStoreError.athleteExists("Émile")) { try store.addAthlete(AthleteName(rawValue: "émile")!, preferences: ZonePreferences()) }
        #expect(try store.athlete(named: AthleteName(rawValue: "anna")!)?.name == anna)
        #expect(try store.athletes().map(\.name.rawValue) == ["Anna", "Ben", "Émile"])
        #expect(try store.preferences(of: anna) == Self.preferences(age: 30, ftp: 250, heartRateZones: [120, 140, 155, 170]))
        try store.assignSensor("C4:7E:11:22:33:44", role: .heartRate, to: anna)
        try store.assignSensor("C4:7E:11:22:33:44", role: .heartRate, to: ben)
        #expect(try store.athlete(named: anna)?.sensors == [:])
        #expect(try store.athlete(named: ben)?.sensors == [.heartRate: "C4:7E:11:22:33:44"])
        let id = try store.save(try ride(minutes: 2), athlete: anna)
        try store.removeAthlete(anna)
        #expect(throws: WorkoutStoreError.noAthlete("Anna")) { try store.preferences(of: anna) }
        #expect(try store.identity(of: id).athlete == anna)
        #expect(try store.workouts(matching: WorkoutFilter(athlete: AthleteName(rawValue: "ANNA")!)).map(\.id) == [id])
        #expect(try store.workouts(matching: WorkoutFilter(athlete: ben)).isEmpty)
    }

    /// Names are counted and compared as a person would (issue 31), on each backend: a name of
    /// 64 characters with more code points (accents written apart, flags) is taken by the store
    /// and its workouts, which once failed the database's own check of 64 code points (a raw
    /// SQLite error); `émile` decomposed, `ÉMILE` and `Émile` are one athlete, `STRASSE` finds
    /// `Straße` (full case folding), and so do the workouts recorded under any of them.
    @Test(arguments: StoreBackend.available)
    func namesAreCountedAndComparedAsAPersonWould(_ backend: StoreBackend) throws {
        let store = try backend.emptyStore()
        let accents = try #require(AthleteName(rawValue: String(repeating: "e\u{301}", count: 64)))
        let flags = try #require(AthleteName(rawValue: String(repeating: "🇫🇷", count: 64)))
        #expect(accents.rawValue.unicodeScalars.count == 128 && flags.rawValue.unicodeScalars.count == 128)
        try store.addAthlete(accents, preferences: ZonePreferences())
        try store.addAthlete(flags, preferences: ZonePreferences())
        let long = try store.save(try ride(minutes: 2), athlete: flags)
        #expect(try store.identity(of: long).athlete?.rawValue == flags.rawValue)
        #expect(AthleteName(rawValue: String(repeating: "e\u{301}", count: 65)) == nil)
        let zalgo = "a" + String(repeating: "\u{301}", count: AthleteName.maximumCodePoints)
        #expect(AthleteName(rawValue: zalgo) == nil, "one character, but more code points than the stores take")

        let composed = try #require(AthleteName(rawValue: "Émile"))
        let decomposed = try #require(AthleteName(rawValue: "e\u{301}mile"))
        try store.addAthlete(composed, preferences: try Self.preferences(age: 30, ftp: 260))
        #expect(throws: WorkoutStoreError.athleteExists("Émile")) { try store.addAthlete(decomposed, preferences: ZonePreferences()) }
        for spelling in ["e\u{301}mile", "ÉMILE", "E\u{301}MILE", "émile"] {
            #expect(try store.athlete(named: AthleteName(rawValue: spelling)!)?.name.rawValue == "Émile", "\(spelling)")
        }
        #expect(try store.preferences(of: decomposed) == Self.preferences(age: 30, ftp: 260))
        try store.addAthlete(AthleteName(rawValue: "Straße")!, preferences: ZonePreferences())
        #expect(try store.athlete(named: AthleteName(rawValue: "STRASSE")!)?.name.rawValue == "Straße")
        #expect(try store.athletes().count == 4)

        // Workouts keep the name as it was given; a filter finds every spelling of it.
        let first = try store.save(try ride(minutes: 2, seed: 2, day: 1), athlete: composed)
        let second = try store.save(try ride(minutes: 2, seed: 3, day: 2), athlete: decomposed)
        #expect(try store.workouts(matching: WorkoutFilter(athlete: AthleteName(rawValue: "ÉMILE")!)).map(\.id) == [first, second])
        #expect(try store.workouts(matching: WorkoutFilter(athlete: flags)).map(\.id) == [long])
        #expect(try store.workouts(matching: WorkoutFilter(athlete: AthleteName(rawValue: "Emile")!)).isEmpty)
    }

    static func preferences(age: Int, ftp: Int, heartRateZones: [Double]? = nil) throws -> ZonePreferences {
        var preferences = ZonePreferences(profile: AthleteProfile(age: age, restingHeartRate: 50, functionalThresholdPower: ftp))
        if let heartRateZones {
            try preferences.setUserConfiguration(try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: heartRateZones))
        }
        return preferences
    }

    @Test func namesAreOneTo64CharactersWithoutControlsOrOuterSpaces() {
        for valid in ["Anna", "Anna-Lena Müller", "李", String(repeating: "a", count: 64)] {
            #expect(AthleteName(rawValue: valid) != nil, "\(valid)")
        }
        for invalid in ["", " Anna", "Anna ", "A\tB", "A\nB", String(repeating: "a", count: 65)] {
            #expect(AthleteName(rawValue: invalid) == nil, "\(invalid)")
        }
    }

    @Test func eachAthleteKeepsTheirOwnPreferencesApartFromTheBoxs() throws {
        let mine = try Self.preferences(age: 50, ftp: 200)
        try store.savePreferences(mine)
        try store.addAthlete(anna, preferences: try Self.preferences(age: 35, ftp: 230, heartRateZones: [120, 140, 155, 170]))
        try store.addAthlete(ben, preferences: try Self.preferences(age: 28, ftp: 300))
        #expect(try store.preferences() == mine)
        #expect(try store.preferences(of: nil) == mine)
        #expect(try store.preferences(of: AthleteName(rawValue: "anna")!) == Self.preferences(age: 35, ftp: 230, heartRateZones: [120, 140, 155, 170]))
        var changed = try store.preferences(of: ben)
        changed.profile.functionalThresholdPower = 310
        try changed.setUserConfiguration(try WorkoutZoneConfiguration(quantityType: .cyclingPower, boundaryValues: [150, 200, 250]))
        try store.savePreferences(changed, for: ben)
        #expect(try store.preferences(of: ben) == changed)
        #expect(try store.preferences() == mine)
        #expect(try store.athletes().map(\.name) == [anna, ben])
        #expect(throws: WorkoutStoreError.athleteExists("Anna")) { try store.addAthlete(AthleteName(rawValue: "ANNA")!, preferences: mine) }
        let nobody = AthleteName(rawValue: "Nobody")!
        #expect(throws: WorkoutStoreError.noAthlete("Nobody")) { try store.preferences(of: nobody) }
        #expect(throws: WorkoutStoreError.noAthlete("Nobody")) { try store.savePreferences(mine, for: nobody) }
        #expect(throws: WorkoutStoreError.noAthlete("Nobody")) { try store.removeAthlete(nobody) }
    }

    @Test func aSensorIsOneAthletesInOneRole() throws {
        try store.addAthlete(anna, preferences: ZonePreferences())
        try store.addAthlete(ben, preferences: ZonePreferences())
        try store.assignSensor("C4:7E:11:22:33:44", role: .heartRate, to: anna)
        try store.assignSensor("E8:FE:6E:91:9F:16", role: .power, to: anna)
        // A new strap replaces Anna's old one; Ben takes her power meter.
        try store.assignSensor("C4:7E:11:22:33:55", role: .heartRate, to: anna)
        try store.assignSensor("E8:FE:6E:91:9F:16", role: .power, to: ben)
        let sensors = try store.athletes().map(\.sensors)
        #expect(sensors == [[.heartRate: "C4:7E:11:22:33:55"], [.power: "E8:FE:6E:91:9F:16"]])
        #expect(throws: WorkoutStoreError.noAthlete("Cleo")) {
            try store.assignSensor("C4:7E:11:22:33:66", role: .heartRate, to: AthleteName(rawValue: "Cleo")!)
        }
        // The schema takes only upper-case addresses.
        #expect(throws: SQLiteError.self) {
            try store.connection.execute("INSERT INTO athlete_sensors (address, athlete_id, role) VALUES ('c4:7e:11:22:33:77', 1, 'power')")
        }
    }

    @Test func workoutsKeepTheirAthletesNameAfterTheAthleteIsRemoved() throws {
        try store.addAthlete(anna, preferences: try Self.preferences(age: 35, ftp: 230, heartRateZones: [120, 140, 155, 170]))
        try store.assignSensor("C4:7E:11:22:33:44", role: .heartRate, to: anna)
        let hers = try store.save(try ride(minutes: 2), athlete: anna)
        let mine = try store.save(try ride(minutes: 2, seed: 2, day: 1))
        #expect(try store.workouts(matching: WorkoutFilter(athlete: AthleteName(rawValue: "ANNA")!)).map(\.id) == [hers])
        #expect(try store.workouts().map(\.identity.athlete) == [anna, nil])
        try store.removeAthlete(anna)
        #expect(try store.athletes().isEmpty)
        #expect(try store.count("athlete_sensors") == 0 && store.count("athlete_preferred_zone_configurations") == 0)
        #expect(try store.identity(of: hers).athlete == anna)
        #expect(try store.identity(of: mine).athlete == nil)
        #expect(try store.workouts(matching: WorkoutFilter(athlete: anna)).map(\.id) == [hers])
    }

    /// A recording's athlete is kept through its finish and its recovery.
    @Test func aRecordingKeepsItsAthlete() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let workout = try ride(minutes: 2)
        var recorder: WorkoutRecorder? = try WorkoutRecorder(
            path: path,
            start: RecordingStart(
                startDate: workout.startDate, start: workout.start, activityType: workout.activityType,
                zoneConfigurations: workout.zoneGroupsByType.mapValues(\.configuration), athlete: ben))
        let id = try #require(recorder?.workoutID)
        recorder?.record(samples: workout.samples.prefix(50), events: [])
        recorder = nil
        let store = try WorkoutStore(path: path)
        _ = try store.recoverWorkout(id)
        #expect(try store.identity(of: id).athlete == ben)
    }
}
