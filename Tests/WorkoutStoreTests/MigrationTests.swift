import Foundation
import SensorCore
import SensorTestSupport
import Testing
import Workouts
@testable import WorkoutStore
import Zones

@Suite struct MigrationTests {
    static let version1Fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/store/workouts-v1.sql").standardized

    /// Builds the version-1 store of the fixture at `path`.
    static func makeVersion1Store(at path: String) throws {
        let sql = try String(contentsOf: version1Fixture, encoding: .utf8)
        try SQLiteConnection(path: path).execute(sql)
    }

    @Test func aVersion1StoreIsMigratedAndGivesItsWorkoutBack() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        try Self.makeVersion1Store(at: path)
        #expect(try SQLiteConnection(path: path).userVersion == 1)

        let store = try WorkoutStore(path: path)
        #expect(try store.connection.userVersion == WorkoutStore.schemaVersion)
        let id = try #require(try store.latestWorkoutID())
        let workout = try store.workout(id)
        #expect(workout.samples.count == 592 && workout.duration == .seconds(60) && workout.pauses.count == 2)
        #expect(workout.startDate == noonNovember2)
        // Recorded before the store kept profiles: none, not today's.
        #expect(workout.profile == nil)
        for group in workout.zoneGroupsByType.values {
            #expect(group == (try rebucketed(workout, into: group.configuration)))
        }
        // It saves and loads again as it is, with this build's writer.
        #expect(try store.workout(try store.save(workout)) == workout)
        // Migration 2 computed the time at each value from the stored samples.
        #expect(try store.count("zone_value_durations") > 0)
        let configuration = try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [110, 120, 130])
        let totals = try store.zoneTotals(in: configuration, by: .month, calendar: ZoneTotalsTests.utcCalendar)
        let expected = try rebucketed(workout, into: configuration).durations.map { $0 * 2 }
        #expect(totals.map(\.zoneGroup.durations) == [expected])
    }

    /// Migration 5 on a version-4 store: its workouts have no recorded profile (none is made up
    /// from the stored one) and load as they were; workouts saved afterwards keep theirs.
    @Test func migration5KeepsVersion4WorkoutsWithoutAProfile() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        var old = try ride(minutes: 3)
        old.profile = nil
        let oldID: WorkoutID
        do {
            let version4 = try WorkoutStore(path: path, migrations: Array(Schema.migrations.prefix(4)))
            #expect(try version4.connection.userVersion == 4)
            oldID = try version4.save(old)
            // The profile as a version-4 build wrote it (this build's writes name later columns).
            try version4.connection.execute(
                "INSERT INTO profile (id, age, functional_threshold_power, power_zone_model) VALUES (1, 40, 250, '6')")
        }
        #expect(try SQLiteConnection(path: path).scalarText("SELECT count(*) FROM sqlite_master WHERE name = 'workout_profiles'") == "0")

        let store = try WorkoutStore(path: path)
        #expect(try store.connection.userVersion == WorkoutStore.schemaVersion)
        #expect(try store.workout(oldID) == savedBeforeMigration12(old))
        #expect(try store.workout(oldID).profile == nil)
        let new = try ride(minutes: 3, seed: 2, day: 1)
        #expect(new.profile != nil)
        let newID = try store.save(new)
        #expect(try store.workout(newID) == new)
        #expect(try store.count("workout_profiles") == 1)
        // Deleting a workout deletes its profile.
        try store.deleteWorkout(newID)
        #expect(try store.count("workout_profiles") == 0)
    }

    /// Migration 6 on a version-5 store: the stored profile and every recorded one keep their
    /// values and get the only heart-rate model there was, heart-rate reserve, and no LTHR; both
    /// can be set afterwards.
    @Test func migration6GivesVersion5ProfilesHeartRateReserveAndNoThreshold() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let old = try ride(minutes: 3)
        #expect(old.profile == WorkoutProfile(athlete: AthleteProfile(age: 40, restingHeartRate: 50, functionalThresholdPower: 250)))
        let stored = ZonePreferences(
            profile: AthleteProfile(age: 40, restingHeartRate: 50, maximumHeartRate: 185, functionalThresholdPower: 250),
            powerZoneModel: .sevenZones)
        let oldID: WorkoutID
        do {
            let version5 = try WorkoutStore(path: path, migrations: Array(Schema.migrations.prefix(5)))
            #expect(try version5.connection.userVersion == 5)
            // The workout and the profiles as a version-5 build wrote them (this build's writes name
            // the columns of migration 6).
            var withoutProfile = old
            withoutProfile.profile = nil
            oldID = try version5.save(withoutProfile)
            try version5.connection.execute(
                """
                INSERT INTO workout_profiles (workout_id, age, resting_heart_rate, functional_threshold_power, power_zone_model)
                    VALUES (\(oldID.rawValue), 40, 50, 250, '6');
                INSERT INTO profile (id, age, resting_heart_rate, maximum_heart_rate, functional_threshold_power, power_zone_model)
                    VALUES (1, 40, 50, 185, 250, '7');
                """)
        }
        #expect(
            try SQLiteConnection(path: path).scalarText(
                "SELECT count(*) FROM pragma_table_info('profile') WHERE name = 'heart_rate_zone_model'") == "0")

        let store = try WorkoutStore(path: path)
        #expect(try store.connection.userVersion == WorkoutStore.schemaVersion)
        let migrated = try store.preferences()
        #expect(migrated == stored)
        #expect(migrated.heartRateZoneModel == .reserve && migrated.profile.lactateThresholdHeartRate == nil)
        let workout = try store.workout(oldID)
        #expect(workout == savedBeforeMigration12(old))
        #expect(workout.profile?.heartRateZoneModel == .reserve && workout.profile?.athlete.lactateThresholdHeartRate == nil)

        var changed = migrated
        changed.profile.lactateThresholdHeartRate = 165
        changed.heartRateZoneModel = .lactateThreshold
        try store.savePreferences(changed)
        #expect(try WorkoutStore(path: path).preferences() == changed)
        #expect(try store.workout(oldID) == savedBeforeMigration12(old))
    }

    /// Migration 7 on a version-6 store: its workouts have no targets; a workout saved afterwards
    /// keeps its own, and deleting it deletes them.
    @Test func migration7AddsTargetZonesToNewWorkoutsOnly() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let old = try ride(minutes: 3)
        let oldID: WorkoutID
        do {
            let version6 = try WorkoutStore(path: path, migrations: Array(Schema.migrations.prefix(6)))
            oldID = try version6.save(old)
        }
        let store = try WorkoutStore(path: path)
        #expect(try store.workout(oldID) == savedBeforeMigration12(old) && old.targets.isEmpty)
        var new = try ride(minutes: 3, seed: 2, day: 1)
        new.targets = [
            WorkoutTarget(quantityType: .heartRate, zones: 1...2), WorkoutTarget(quantityType: .cyclingPower, zones: 3...3),
        ]
        let newID = try store.save(new)
        #expect(try store.workout(newID).targets == new.targets)
        #expect(try store.workout(newID) == new)
        try store.deleteWorkout(newID)
        #expect(try store.count("workout_targets") == 0)
    }

    /// Migration 16 rebuilds the events table for the cause `step`: the workouts before it keep
    /// every event with its cause, and have no plan.
    @Test func migration16KeepsEventsAndTheirCauses() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let old = try SyntheticRide.workout(seconds: 900, seed: 4, startDate: noonNovember2, lapSeconds: 300)
        let oldID: WorkoutID
        do {
            let version15 = try WorkoutStore(path: path, migrations: Array(Schema.migrations.prefix(15)))
            oldID = try version15.save(old)
        }
        let store = try WorkoutStore(path: path)
        let migrated = try store.workout(oldID)
        #expect(migrated == savedBeforeMigration17(old) && migrated.plan == nil && !old.events.isEmpty)
        #expect(throws: (any Error).self) {
            try store.connection.execute("UPDATE events SET cause = 'step' WHERE kind = 'pause'")
        }
    }

    /// Migration 8 on a version-7 store whose newest workout was deleted: before it, SQLite gave
    /// that id to the next workout (checked here, so the test shows what the migration changes);
    /// after it, ids only go up, for saved workouts and recordings alike, and across connections.
    @Test func migration8NeverGivesADeletedWorkoutsIDAgain() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        do {
            let version7 = try WorkoutStore(path: path, migrations: Array(Schema.migrations.prefix(7)))
            for day in 0..<3 { _ = try version7.save(try ride(minutes: 2, seed: UInt64(day), day: day)) }
            try version7.deleteWorkout(WorkoutID(3))
            #expect(try version7.save(try ride(minutes: 2, seed: 9, day: 5)) == WorkoutID(3), "SQLite reuses the id")
            try version7.deleteWorkout(WorkoutID(3))
        }
        let store = try WorkoutStore(path: path)
        #expect(try store.connection.userVersion >= Schema.workoutIDHighWaterVersion)
        #expect(try store.workouts().map(\.id) == [WorkoutID(1), WorkoutID(2)])
        // The mark is seeded with the largest id left (2): the migration cannot know of 3.
        #expect(try store.save(try ride(minutes: 2, seed: 4, day: 4)) == WorkoutID(3))
        try store.deleteWorkout(WorkoutID(3))
        #expect(try store.save(try ride(minutes: 2, seed: 5, day: 5)) == WorkoutID(4))
        // A recording takes its id the same way.
        try store.deleteWorkout(WorkoutID(4))
        let recording = try ride(minutes: 1, seed: 6, day: 6)
        let recorder = try WorkoutRecorder(
            path: path,
            start: RecordingStart(
                startDate: recording.startDate, start: recording.start, activityType: recording.activityType,
                zoneConfigurations: [:]))
        #expect(recorder.workoutID == WorkoutID(5))
        try recorder.discard()
        // Another connection (another process) sees the same mark.
        let other = try WorkoutStore(path: path)
        #expect(try other.save(try ride(minutes: 2, seed: 7, day: 7)) == WorkoutID(6))
        try other.deleteWorkout(WorkoutID(6))
        #expect(try store.save(try ride(minutes: 2, seed: 8, day: 8)) == WorkoutID(7))
        // A workout saved with its id (a finished recording) raises the mark too.
        #expect(try store.sqlite!.scalarText("SELECT id FROM workout_id_high_water") == "7")
    }

    /// Migration 11 lets a version-10 store take names of 64 characters and more code points
    /// (the version-10 check refuses them), keeping its athletes and workouts.
    @Test func migration11TakesNamesOf64CharactersWithMoreCodePoints() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let name = try #require(AthleteName(rawValue: String(repeating: "e\u{301}", count: 64)))
        let anna = try #require(AthleteName(rawValue: "Anna"))
        do {
            let version10 = try WorkoutStore(path: path, migrations: Array(Schema.migrations.prefix(10)))
            // As a build of version 10 added athletes (today's also stamps the change, migration 15).
            let add = "INSERT INTO athletes (name, power_zone_model, heart_rate_zone_model) VALUES (?, '6', 'reserve')"
            try version10.connection.statement(add).run(anna.rawValue)
            _ = try version10.save(try ride(minutes: 2), athlete: anna)
            #expect(throws: (any Error).self) { try version10.connection.statement(add).run(name.rawValue) }
        }
        let store = try WorkoutStore(path: path)
        #expect(try store.connection.userVersion == Schema.version)
        try store.addAthlete(name, preferences: ZonePreferences())
        let id = try store.save(try ride(minutes: 2, seed: 2, day: 1), athlete: name)
        #expect(try store.athletes().map(\.name) == [anna, name])
        #expect(try store.workouts(matching: WorkoutFilter(athlete: name)).map(\.id) == [id])
        #expect(try store.sqlite!.scalarText("PRAGMA integrity_check") == "ok")
        // Another connection reads the changed definitions.
        #expect(try WorkoutStore(path: path).athlete(named: name)?.name == name)
    }

    @Test func aFailingMigrationLeavesTheStoreAtItsVersion() throws {
        struct Failure: Error {}
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        _ = try WorkoutStore(path: path, migrations: [Schema.migrations[0]])
        let failing = Migration(2, "fails half-way") { connection in
            try connection.execute("CREATE TABLE half_done (x INTEGER)")
            throw Failure()
        }
        #expect(throws: WorkoutStoreError.self) { try WorkoutStore(path: path, migrations: [Schema.migrations[0], failing]) }
        let connection = try SQLiteConnection(path: path)
        #expect(try connection.userVersion == 1)
        #expect(try connection.scalarText("SELECT count(*) FROM sqlite_master WHERE name = 'half_done'") == "0")
        // The real migrations 2 and on still apply afterwards.
        #expect(try WorkoutStore(path: path).connection.userVersion == WorkoutStore.schemaVersion)
    }

    /// Two connections that open a store at once both see a migration pending; the one that takes
    /// the write lock second finds it applied (the version is read inside the transaction) and does
    /// not apply it again.
    @Test func aMigrationAnotherConnectionAppliedFirstIsNotAppliedAgain() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        try Self.makeVersion1Store(at: path)
        let first = try SQLiteConnection(path: path)
        let second = try SQLiteConnection(path: path)
        #expect(try first.userVersion == 1 && second.userVersion == 1)
        try Migration.migrate(first, with: Schema.migrations)
        try Migration.migrate(second, with: Schema.migrations)
        #expect(try second.userVersion == WorkoutStore.schemaVersion)
        #expect(try second.scalarText("PRAGMA application_id") == "\(Schema.applicationID)")
    }

    @Test func aStoreMadeBeforeTheApplicationIDIsRecognisedAndGetsIt() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        try Self.makeVersion1Store(at: path)
        #expect(try StoreIdentity(SQLiteConnection(path: path)) == .ours(version: 1))
        let store = try WorkoutStore(path: path)
        #expect(try StoreIdentity(store.sqlite!) == .ours(version: WorkoutStore.schemaVersion))
        #expect(try store.sqlite!.scalarText("PRAGMA application_id") == "\(Schema.applicationID)")
    }

    @Test func migrationsAreNumberedInOrder() {
        #expect(Schema.migrations.map(\.version) == Array(1...Int64(Schema.migrations.count)))
    }

    @Test func aStoreFromANewerBuildIsRefusedAndLeftUnchanged() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        try SQLiteConnection(path: path).execute(
            "CREATE TABLE future (x INTEGER); PRAGMA user_version = 99; PRAGMA application_id = \(Schema.applicationID)")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = #expect(throws: WorkoutStoreError.self) { try WorkoutStore(path: path) }
        #expect(error == .newerSchema(path: path, version: 99, known: WorkoutStore.schemaVersion))
        #expect(error?.description.contains("has schema version 99, but this sensorbridge knows versions up to \(WorkoutStore.schemaVersion)") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["workouts.sqlite"])
    }

    /// Migration 12 on a version-11 store: its workouts keep their RMSSD and get no RR artefact
    /// counts (0 of 0); a workout saved afterwards keeps its counts.
    @Test func migration12AddsRRArtefactCountsToNewWorkoutsOnly() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let old = try ride(minutes: 3)
        #expect(old.statistics.rrIntervalCount > 0)
        let oldID: WorkoutID
        do {
            let version11 = try WorkoutStore(path: path, migrations: Array(Schema.migrations.prefix(11)))
            oldID = try version11.save(old)
        }
        let store = try WorkoutStore(path: path)
        #expect(try store.connection.userVersion == Schema.version)
        let loaded = try store.workout(oldID)
        #expect(loaded.statistics.rmssd == old.statistics.rmssd)
        #expect(loaded.statistics.rrIntervalCount == 0 && loaded.statistics.rrArtefactShare == nil)
        let new = try ride(minutes: 3, seed: 2, day: 1)
        #expect(try store.workout(store.save(new)) == new)
    }

    /// Migration 13 on a version-12 store: its workouts have no stored best efforts and get them
    /// worked out from their samples when read, equal to those a workout saved afterwards stores.
    @Test func migration13WorksOutBestEffortsOfEarlierWorkoutsFromTheirSamples() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let old = try ride(minutes: 3)
        do {
            let version12 = try WorkoutStore(path: path, migrations: Array(Schema.migrations.prefix(12)))
            _ = try version12.save(old)
        }
        let store = try WorkoutStore(path: path)
        #expect(try store.connection.userVersion == Schema.version)
        let new = try ride(minutes: 3, seed: 2, day: 1)
        let newID = try store.save(new)
        func storedRows(_ id: Int64) throws -> Int64 {
            try store.connection.statement("SELECT count(*) FROM best_efforts WHERE workout_id = ?").firstRow(id) { $0.int64(0) } ?? 0
        }
        #expect(try storedRows(1) == 0)
        #expect(try storedRows(newID.rawValue) > 0)
        let read = try store.bestEfforts()
        #expect(read.map(\.efforts) == [old.bestEfforts(), new.bestEfforts()])
        #expect(!read[0].efforts.power.isEmpty && !read[0].efforts.heartRate.isEmpty)
    }

    /// Migration 14 on a version-13 store: a workout with a transition (`record --activities`) is
    /// stored and read back whole; the earlier workouts stay as they were.
    @Test func migration14TakesTransitions() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let old = try ride(minutes: 3)
        let oldID = try WorkoutStore(path: path, migrations: Array(Schema.migrations.prefix(13))).save(old)
        let store = try WorkoutStore(path: path)
        #expect(try store.connection.userVersion == Schema.version)
        var machine = WorkoutStateMachine(activityType: .cycling)
        try machine.beginCollection(at: .zero, date: Date(timeIntervalSince1970: 1_800_000_000))
        for second in 0..<90 {
            if second == 30 { try machine.beginActivity(.transition, at: .seconds(second)) }
            if second == 60 { try machine.beginActivity(.running, at: .seconds(second)) }
            machine.add(Sample(sensor: SensorID(1), type: .heartRate, value: 140, time: .seconds(second)))
        }
        try machine.endCollection(at: .seconds(90))
        let triathlon = try machine.finishWorkout()
        let loaded = try store.workout(store.save(triathlon))
        #expect(loaded.activityType == .multisport && loaded.activities.map(\.activityType) == [.cycling, .transition, .running])
        #expect(try store.workout(oldID) == savedBeforeMigration17(old))
    }
}

/// A workout as a store before migration 12 keeps it: without the RR artefact counts.
func savedBeforeMigration12(_ workout: Workout) -> Workout {
    var workout = savedBeforeMigration17(workout)
    workout.statistics.rrIntervalCount = 0
    workout.statistics.rrArtefactCount = 0
    return workout
}

/// `workout` as a store gives back one saved before migration 17 kept the time heart rate held.
func savedBeforeMigration17(_ workout: Workout) -> Workout {
    var workout = workout
    workout.statistics.heartRate?.heldDuration = .zero
    workout.statistics.heartRate?.heldAverage = nil
    return workout
}
