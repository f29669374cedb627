import Foundation
import Testing
import Workouts
@testable import WorkoutStore
import Zones

@Suite struct StoreErrorTests {
    @Test func aFileThatIsNotADatabaseIsRefusedAndLeftUnchanged() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("notes.txt")
        let text = Data(String(repeating: "Ride notes: easy spin, legs heavy.\n", count: 200).utf8)
        try text.write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: WorkoutStoreError.self) { try WorkoutStore(path: path) }
        #expect(error == .notADatabase(path: path))
        #expect(error?.description.contains("is not a SQLite database") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == text)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["notes.txt"])
    }

    /// Another program's SQLite database, in rollback-journal mode or WAL mode, with or without an
    /// application id of its own: refused before anything is written, the file byte for byte as it
    /// was and nothing created beside it.
    @Test(arguments: [
        "CREATE TABLE contacts (name TEXT, phone TEXT); INSERT INTO contacts VALUES ('Ann', '555-0100')",
        "PRAGMA journal_mode = WAL; CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('ride easy'); PRAGMA user_version = 7",
        "PRAGMA application_id = 1179403647; CREATE TABLE workouts (id INTEGER)",
        "CREATE VIEW answer AS SELECT 42",
        "PRAGMA user_version = 1",
    ])
    func anotherProgramsDatabaseIsRefusedAndLeftByteForByte(sql: String) throws {
        let folder = try TemporaryFolder()
        let path = folder.file("app.db")
        try SQLiteConnection(path: path).execute(sql)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = #expect(throws: WorkoutStoreError.self) { try WorkoutStore(path: path) }
        guard case .notOurs(let errorPath, _)? = error else {
            Issue.record("expected notOurs, got \(String(describing: error))")
            return
        }
        #expect(errorPath == path)
        #expect(error?.description.contains("not a SensorBridge workout store") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["app.db"])
    }

    /// An empty file (a `touch`, or a store an older build began) is a blank store to make.
    @Test func anEmptyFileBecomesAStore() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let store = try WorkoutStore(path: path)
        #expect(try StoreIdentity(store.sqlite!) == .ours(version: WorkoutStore.schemaVersion))
    }

    /// A new store appears under its name only once it is complete; no temporary file stays.
    @Test func aNewStoreLeavesNoTemporaryFiles() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("rides/workouts.sqlite")
        let store = try WorkoutStore(path: path)
        #expect(try store.connection.userVersion == WorkoutStore.schemaVersion)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.file("rides"))
        #expect(files.allSatisfy { $0.hasPrefix("workouts.sqlite") }, "\(files)")
    }

    /// A folder nobody may create files in: a mode 0555 folder, or for root (whom modes do not
    /// stop) sysfs, where creating a file is refused.
    @Test func aReadOnlyLocationIsRefusedAndNothingIsCreated() throws {
        let folder = try TemporaryFolder()
        let path: String
        if geteuid() == 0 {
            path = "/sys/sensorbridge-test-\(UUID().uuidString).sqlite"
        } else {
            chmod(folder.path, 0o555)
            path = folder.file("workouts.sqlite")
        }
        let error = #expect(throws: WorkoutStoreError.self) { try WorkoutStore(path: path) }
        guard case .readOnly(let errorPath, let reason)? = error else {
            Issue.record("expected a read-only error, got \(String(describing: error))")
            return
        }
        #expect(errorPath == path)
        #expect(reason.contains("denied") || reason.contains("not permitted") || reason.contains("read-only"))
        #expect(error?.description.contains("give a writable path with --store") == true)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aFolderThatCannotBeCreatedIsAClearError() throws {
        let folder = try TemporaryFolder()
        try Data("a file, not a folder".utf8).write(to: URL(fileURLWithPath: folder.file("rides")))
        let error = #expect(throws: WorkoutStoreError.self) { try WorkoutStore(path: folder.file("rides/workouts.sqlite")) }
        #expect(error?.description.contains("cannot open") == true || error?.description.contains("cannot write") == true)
    }

    /// A full disk, made with `max_page_count`: SQLite answers `SQLITE_FULL` exactly as it does
    /// when the file system refuses to grow the file.
    @Test func aFullDiskRollsTheSaveBack() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let store = try WorkoutStore(path: path)
        let small = try store.save(try ride(minutes: 1))
        let pages = try #require(Int(try store.sqlite!.scalarText("PRAGMA page_count") ?? ""))
        _ = try store.sqlite!.scalarText("PRAGMA max_page_count = \(pages + 4)")
        let error = #expect(throws: WorkoutStoreError.self) { try store.save(try ride(minutes: 20)) }
        #expect(error == .diskFull(path: path))
        #expect(error?.description.contains("is full; the change was rolled back") == true)
        #expect(try store.workouts().map(\.id) == [small])
        #expect(try store.count("sample_chunks") == 1)
        #expect(try store.workout(small) == (try ride(minutes: 1)))
    }

    /// The schema refuses rows that break the model, whoever writes them.
    @Test func theSchemaStatesItsInvariants() throws {
        let store = try WorkoutStore(path: WorkoutStore.inMemoryPath)
        let id = try store.save(try ride(minutes: 1)).rawValue
        let group = try #require(try store.sqlite!.prepare("SELECT id FROM zone_groups LIMIT 1").firstRow { $0.int64(0) })
        let refused = [
            "INSERT INTO zone_durations VALUES (\(group), -1, 5)",
            "INSERT INTO zone_durations VALUES (\(group), 9, 5)",
            "UPDATE zone_durations SET duration_ns = -1",
            "INSERT INTO zone_configurations (quantity_type, source, unit, boundaries) VALUES (1, 'mine', 'count/min', '[120,140]')",
            "INSERT INTO zone_configurations (quantity_type, source, unit, boundaries) VALUES (1, 'user', 'W', '[120,140]')",
            "INSERT INTO zone_configurations (quantity_type, source, unit, boundaries) VALUES (1, 'user', 'count/min', '[120]')",
            "INSERT INTO zone_configurations (quantity_type, source, unit, boundaries) VALUES (3, 'user', 'rpm', '[80,90]')",
            "INSERT INTO laps VALUES (\(id), 99, 500, 400)",
            "INSERT INTO workouts (start_date, anchor_offset_ns, activity_type, heart_rate_hold_ns, power_hold_ns) VALUES (0, 0, 'juggling', 1, 1)",
            """
            INSERT INTO workouts (start_date, anchor_offset_ns, duration_ns, active_duration_ns, activity_type,
                heart_rate_hold_ns, power_hold_ns) VALUES (0, 0, 10, 11, 'cycling', 1, 1)
            """,
            "INSERT INTO events (workout_id, position, offset_ns, kind) VALUES (\(id), 99, 0, 'activity')",
            "INSERT INTO sample_chunks VALUES (\(id), 99, 2, x'00', x'00', x'0000', x'00000000')",
            "INSERT INTO sensors VALUES (12345, 1, 'orphan')",
            "INSERT INTO preferred_zone_configurations SELECT quantity_type, id FROM zone_configurations WHERE source = 'system' LIMIT 1",
            "INSERT INTO profile (id, age, power_zone_model) VALUES (1, 0, '6')",
            "INSERT INTO profile (id, birth_date, power_zone_model) VALUES (1, '1990-02-30', '6')",
        ]
        for sql in refused {
            let error = #expect(throws: SQLiteError.self, "\(sql)") { try store.connection.execute(sql) }
            #expect(error?.code == .constraint, "\(sql): \(String(describing: error))")
        }
        #expect(try store.workout(WorkoutID(id)) == (try ride(minutes: 1)))
    }

    @Test func sqliteErrorsCarryTheirCodeAndMessage() throws {
        let connection = try SQLiteConnection(path: WorkoutStore.inMemoryPath)
        let error = #expect(throws: SQLiteError.self) { try connection.execute("SELECT * FROM nowhere") }
        #expect(error?.code == .error)
        #expect(error?.message == "no such table: nowhere")
        #expect(error?.sql == "SELECT * FROM nowhere")
        #expect(SQLiteError.Code.busy.description == "database is locked")
        #expect(SQLiteError.Code(rawValue: 1555 /* SQLITE_CONSTRAINT_PRIMARYKEY */) == .constraint)
    }

    @Test func blobsOfNumbersRoundTrip() throws {
        let connection = try SQLiteConnection(path: WorkoutStore.inMemoryPath)
        try connection.execute("CREATE TABLE t (a BLOB, b BLOB, c BLOB, d BLOB)")
        let doubles = [0, -0.5, .infinity, 1e-300, .pi]
        let integers: [Int64] = [0, -1, .max, .min]
        try connection.statement("INSERT INTO t VALUES (?, ?, ?, ?)").run(doubles, integers, [UInt16](), [UInt8(7)])
        let row = try connection.statement("SELECT a, b, c, d, length(c) FROM t").firstRow { row in
            (row.blob(0, of: Double.self), row.blob(1, of: Int64.self), row.blob(2, of: UInt16.self), row.blob(3, of: UInt8.self), row.int(4))
        }
        #expect(row?.0 == doubles && row?.1 == integers && row?.2 == [] && row?.3 == [7] && row?.4 == 0)
        // Three bytes are no whole number of uint16s.
        #expect(try connection.statement("SELECT x'010203'").firstRow { $0.blob(0, of: UInt16.self) } == .some(nil))
    }
}
