import Foundation
import SensorCore
import Testing
import Workouts
@testable import WorkoutStore
import Zones

@Suite struct WorkoutRoundTripTests {
    static let tables = [
        "workouts", "workout_statistics", "activities", "zone_groups", "zone_durations", "laps", "pauses", "events",
        "zone_updates", "sensors", "sample_chunks", "zone_value_durations", "recordings", "workout_profiles",
    ]

    /// In memory, in a SQLite file, and in PostgreSQL.
    @Test(arguments: [StoreBackend?.none] + StoreBackend.available)
    func savedWorkoutLoadsEqual(_ backend: StoreBackend?) throws {
        let folder = try TemporaryFolder()
        let store = try backend.map { try WorkoutStore(address: try $0.newAddress(in: folder)) } ?? WorkoutStore(path: WorkoutStore.inMemoryPath)
        let original = try ride(minutes: 25)
        #expect(original.samples.count > 10_000)  // more than two chunks
        #expect(original.pauses.count == 2 && original.laps.count == 3 && !original.zoneUpdates.isEmpty)
        let id = try store.save(original)
        let loaded = try store.workout(id)
        #expect(loaded == original)
        #expect(try store.count("sample_chunks") == (original.samples.count + 4095) / 4096)
    }

    @Test(arguments: StoreBackend.available)
    func multisportWorkoutKeepsItsActivitiesAndTheirZoneGroups(_ backend: StoreBackend) throws {
        let store = try backend.emptyStore()
        let original = try ride(minutes: 20, runAfter: 600)
        #expect(original.activityType == .multisport)
        #expect(original.activities.map(\.activityType) == [.cycling, .running])
        #expect(original.activities[1].zoneGroupsByType[.cyclingPower] == nil)
        let loaded = try store.workout(try store.save(original))
        #expect(loaded == original)
        #expect(loaded.activities[0].zoneGroupsByType == original.activities[0].zoneGroupsByType)
    }

    @Test func aFileStoreKeepsWorkoutsAcrossOpenings() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("nested/folders/workouts.sqlite")
        let original = try ride()
        let id = try WorkoutStore(path: path).save(original)
        // The store is gone, so its connection is closed: the last one checkpoints the WAL and deletes it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("nested/folders")) == ["workouts.sqlite"])
        let reopened = try WorkoutStore(path: path)
        #expect(try reopened.workout(id) == original)
        #expect(try reopened.sqlite!.scalarText("PRAGMA journal_mode") == "wal")
        #expect(try reopened.sqlite!.scalarText("PRAGMA foreign_keys") == "1")
        #expect(try reopened.connection.userVersion == WorkoutStore.schemaVersion)
    }

    @Test(arguments: StoreBackend.available)
    func deletingAWorkoutDeletesEverythingStoredForIt(_ backend: StoreBackend) throws {
        let store = try backend.emptyStore()
        let kept = try store.save(try ride(seed: 1))
        let deleted = try store.save(try ride(seed: 2, runAfter: 300))
        let before = try Self.tables.map { try store.count($0) }
        try store.deleteWorkout(deleted)
        let after = try Self.tables.map { try store.count($0) }
        for (table, (b, a)) in zip(Self.tables, zip(before, after)) where table != "recordings" {
            #expect(a > 0 && a < b, "\(table): \(b) rows before, \(a) after")
        }
        #expect(try store.workouts().map(\.id) == [kept])
        #expect(throws: WorkoutStoreError.notFound(deleted)) { try store.workout(deleted) }
        #expect(throws: WorkoutStoreError.notFound(deleted)) { try store.deleteWorkout(deleted) }
    }

    @Test(arguments: StoreBackend.available)
    func listingFiltersByDateAndActivity(_ backend: StoreBackend) throws {
        let store = try backend.emptyStore()
        let first = try store.save(try ride(minutes: 2, day: 0))
        let second = try store.save(try ride(minutes: 2, day: 3, runAfter: 60))
        let third = try store.save(try ride(minutes: 2, day: 9))
        #expect(try store.workouts().map(\.id) == [first, second, third])
        let day = 86_400.0
        let middle = WorkoutFilter(from: noonNovember2.addingTimeInterval(day), until: noonNovember2.addingTimeInterval(9 * day))
        #expect(try store.workouts(matching: middle).map(\.id) == [second])
        // The bike-and-run workout counts as a run too.
        #expect(try store.workouts(matching: WorkoutFilter(activityType: .running)).map(\.id) == [second])
        #expect(try store.workouts(matching: WorkoutFilter(activityType: .cycling)).map(\.id) == [first, second, third])
        #expect(try store.workouts(matching: WorkoutFilter(activityType: .rowing)).isEmpty)
        #expect(try store.latestWorkoutID() == third)
        let listing = try #require(try store.workouts().first)
        let workout = try store.workout(first)
        #expect(listing.duration == workout.duration && listing.activeDuration == workout.activeDuration)
        #expect(listing.averageHeartRate == workout.statistics.heartRate?.average)
        #expect(listing.normalizedPower == workout.statistics.cyclingPower?.normalized)
        #expect(listing.isFinished && listing.recordedUntil == nil)
    }

    @Test(arguments: StoreBackend.available)
    func anEmptyStoreHasNoLatestWorkout(_ backend: StoreBackend) throws {
        #expect(try backend.emptyStore().latestWorkoutID() == nil)
    }

    /// Each save and read on a store opened anew.
    @Test(arguments: StoreBackend.available)
    func preferencesRoundTrip(_ backend: StoreBackend) throws {
        let folder = try TemporaryFolder()
        let address = try backend.newAddress(in: folder)
        func open() throws -> WorkoutStore { try WorkoutStore(address: address) }
        #expect(try open().preferences() == ZonePreferences())
        var preferences = ZonePreferences(
            profile: AthleteProfile(
                birthDate: CalendarDate(year: 1986, month: 2, day: 28), restingHeartRate: 48, maximumHeartRate: 187,
                functionalThresholdPower: 262),
            powerZoneModel: .sevenZones)
        preferences.setPreferredConfiguration(
            try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [120, 140, 155.5, 170]))
        try open().savePreferences(preferences)
        #expect(try open().preferences() == preferences)
        preferences.removePreferredConfiguration(for: .heartRate)
        preferences.profile.functionalThresholdPower = nil
        try open().savePreferences(preferences)
        #expect(try open().preferences() == preferences)
        // The lactate-threshold heart rate and each heart-rate model.
        preferences.profile.lactateThresholdHeartRate = 167
        for model in HeartRateZoneModel.allCases {
            preferences.heartRateZoneModel = model
            try open().savePreferences(preferences)
            #expect(try open().preferences() == preferences)
        }
        // The schema refuses what the Swift ranges refuse.
        #expect(throws: (any Error).self) {
            try open().connection.execute("UPDATE profile SET lactate_threshold_heart_rate = 251")
        }
        #expect(throws: (any Error).self) {
            try open().connection.execute("UPDATE profile SET heart_rate_zone_model = 'zone2'")
        }
    }

    /// A workout keeps the profile it was recorded with, whatever the stored preferences say; an
    /// empty profile (nothing set) is kept as one, apart from none (a workout from before migration 5).
    @Test(arguments: StoreBackend.available)
    func theRecordedProfileRoundTrips(_ backend: StoreBackend) throws {
        let store = try backend.emptyStore()
        var workout = try ride(minutes: 3)
        #expect(workout.profile == WorkoutProfile(athlete: AthleteProfile(age: 40, restingHeartRate: 50, functionalThresholdPower: 250)))
        workout.profile = WorkoutProfile(
            athlete: AthleteProfile(
                birthDate: CalendarDate(year: 1984, month: 2, day: 29), restingHeartRate: 46, maximumHeartRate: 191,
                functionalThresholdPower: 287),
            powerZoneModel: .sevenZones)
        let full = try store.save(workout)
        try store.savePreferences(ZonePreferences(profile: AthleteProfile(age: 30, functionalThresholdPower: 300)))
        #expect(try store.workout(full) == workout)
        #expect(try store.workout(full).profile?.athlete.functionalThresholdPower == 287)
        // The heart-rate model and LTHR it was recorded with, whatever the person's are now.
        workout.profile?.heartRateZoneModel = .lactateThreshold
        workout.profile?.athlete.lactateThresholdHeartRate = 171
        let friel = try store.save(workout)
        try store.savePreferences(ZonePreferences(profile: AthleteProfile(lactateThresholdHeartRate: 150), heartRateZoneModel: .maximum))
        #expect(try store.workout(friel).profile == workout.profile)

        workout.profile = WorkoutProfile()
        #expect(try store.workout(try store.save(workout)).profile == WorkoutProfile())
        workout.profile = nil
        let none = try store.save(workout)
        #expect(try store.workout(none).profile == nil)
        #expect(try store.count("workout_profiles") == 3)  // full, friel and the empty one
    }

    /// A profile outside what the schema allows is refused with the whole workout: nothing is left.
    @Test(arguments: StoreBackend.available)
    func aProfileOutsideTheSchemaIsRefusedWithItsWorkout(_ backend: StoreBackend) throws {
        let store = try backend.emptyStore()
        var workout = try ride(minutes: 2)
        workout.profile?.athlete.age = 0
        #expect(throws: WorkoutStoreError.self) { try store.save(workout) }
        #expect(try Self.tables.map { try store.count($0) }.allSatisfy { $0 == 0 })
    }
}
