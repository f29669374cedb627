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
        // É and é differ (ASCII case only, on both): another athlete.
        try store.addAthlete(AthleteName(rawValue: "émile")!, preferences: ZonePreferences())
        #expect(try store.athlete(named: AthleteName(rawValue: "anna")!)?.name == anna)
        #expect(try store.athletes().map(\.name.rawValue) == ["Anna", "Ben", "Émile", "émile"])
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
