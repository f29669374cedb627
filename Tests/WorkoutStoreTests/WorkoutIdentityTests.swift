import Foundation
import Testing
import Workouts
@testable import WorkoutStore

/// Each workout's UUID and bridge (migration 9): given to workouts from before it, kept through a
/// recording's finish and a recovery, looked up by UUID, and required of every new workout.
@Suite struct WorkoutIdentityTests {
    @Test func bridgeIDsHoldLettersDigitsUnderscoresAndHyphens() {
        for valid in ["garage", "Room-2", "gym_a", String(repeating: "x", count: 64)] {
            #expect(BridgeID(rawValue: valid)?.rawValue == valid)
        }
        for invalid in ["", "two words", "café", "a/b", "a.b", "a+b", String(repeating: "x", count: 65), "tab\t"] {
            #expect(BridgeID(rawValue: invalid) == nil, "\(invalid)")
        }
    }

    /// The default keeps what MQTT topics had before bridges named workouts: the whole host
    /// name, every other character made `_`.
    @Test func theDefaultIsTheHostNameMadeValid() {
        #expect(BridgeID.fromHostName("garage-pc").rawValue == "garage-pc")
        #expect(BridgeID.fromHostName("garage-pc.example.org").rawValue == "garage-pc_example_org")
        #expect(BridgeID.fromHostName("Büro PC").rawValue == "B_ro_PC")
        #expect(BridgeID.fromHostName(String(repeating: "h", count: 80)).rawValue == String(repeating: "h", count: 64))
        #expect(BridgeID.fromHostName("").rawValue == "sensorbridge")
        #expect(BridgeID(rawValue: BridgeID.hostDefault.rawValue) == BridgeID.hostDefault)
    }

    @Test func migration9GivesEveryOlderWorkoutAUUIDAndThisBoxAsItsBridge() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        do {
            let version8 = try WorkoutStore(path: path, migrations: Array(Schema.migrations.prefix(8)))
            for day in 0..<3 { _ = try version8.save(try ride(minutes: 2, seed: UInt64(day), day: day)) }
        }
        let store = try WorkoutStore(path: path)
        let listed = try store.workouts()
        #expect(listed.count == 3)
        #expect(Set(listed.map(\.identity.uuid)).count == 3)
        #expect(listed.allSatisfy { $0.identity.bridge == .hostDefault })
        for workout in listed {
            let text = try #require(try store.sqlite!.scalarText("SELECT uuid FROM workouts WHERE id = \(workout.id)"))
            #expect(text == workout.identity.uuidText && text.count == 36 && text == text.lowercased())
            #expect(try store.workoutID(uuid: workout.identity.uuid) == workout.id)
            #expect(try store.identity(of: workout.id) == workout.identity)
        }
        #expect(try store.workoutID(uuid: UUID()) == nil)
        #expect(throws: WorkoutStoreError.notFound(WorkoutID(99))) { try store.identity(of: WorkoutID(99)) }
    }

    @Test(arguments: StoreBackend.available)
    func aSavedWorkoutCarriesItsBridgeAndANewUUID(_ backend: StoreBackend) throws {
        let store = try backend.emptyStore()
        let garage = try #require(BridgeID(rawValue: "garage"))
        let first = try store.save(try ride(minutes: 2), bridge: garage)
        let second = try store.save(try ride(minutes: 2, seed: 2, day: 1))
        #expect(try store.identity(of: first).bridge == garage)
        #expect(try store.identity(of: second).bridge == .hostDefault)
        #expect(try store.identity(of: first).uuid != store.identity(of: second).uuid)
        #expect(try store.workoutID(uuid: store.identity(of: second).uuid) == second)
        #expect(try store.workoutID(uuid: UUID()) == nil)
    }

    /// The schema refuses a workout without its identity, and a UUID twice.
    @Test func theSchemaRequiresAUniqueIdentity() throws {
        let store = try WorkoutStore(path: WorkoutStore.inMemoryPath)
        let id = try store.save(try ride(minutes: 2))
        func insert(uuid: String, bridge: String) throws {
            try store.connection.execute(
                """
                INSERT INTO workouts (start_date, anchor_offset_ns, activity_type, heart_rate_hold_ns, power_hold_ns, uuid, bridge)
                VALUES (0, 0, 'cycling', 1, 1, \(uuid), \(bridge))
                """)
        }
        #expect(throws: SQLiteError.self) { try insert(uuid: "NULL", bridge: "'garage'") }
        #expect(throws: SQLiteError.self) { try insert(uuid: "'\(UUID().uuidString.lowercased())'", bridge: "NULL") }
        let taken = try store.identity(of: id).uuidText
        #expect(throws: SQLiteError.self) { try insert(uuid: "'\(taken)'", bridge: "'garage'") }
        #expect(throws: SQLiteError.self) { try insert(uuid: "'\(taken.uppercased())'", bridge: "'garage'") }
        #expect(try store.count("workouts") == 1)
    }

    /// A recording's identity is given when it starts; finishing it and recovering it keep it.
    @Test func aRecordingKeepsItsIdentityWhenFinishedOrRecovered() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let workout = try ride(minutes: 3)
        let lab = try #require(BridgeID(rawValue: "lab-3"))
        func start(_ workout: Workout) -> RecordingStart {
            RecordingStart(
                startDate: workout.startDate, start: workout.start, activityType: workout.activityType,
                zoneConfigurations: workout.zoneGroupsByType.mapValues(\.configuration), bridge: lab)
        }
        let finishing = try WorkoutRecorder(path: path, start: start(workout))
        #expect(finishing.identity.bridge == lab)
        let store = try WorkoutStore(path: path)
        #expect(try store.identity(of: finishing.workoutID) == finishing.identity)
        let finished = try finishing.finish(workout)
        #expect(try store.identity(of: finished) == finishing.identity)

        var interrupted: WorkoutRecorder? = try WorkoutRecorder(path: path, start: start(workout))
        let id = try #require(interrupted?.workoutID)
        let identity = try #require(interrupted?.identity)
        interrupted?.record(samples: workout.samples.prefix(100), events: [])
        interrupted = nil
        _ = try store.recoverWorkout(id)
        #expect(try store.identity(of: id) == identity)
        #expect(try store.workouts().map(\.identity) == [finishing.identity, identity])
    }
}
