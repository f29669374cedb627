import Foundation
import PostgreSQL
import SensorTestSupport
import Synchronization
import Testing
import Workouts
@testable import WorkoutStore

/// The store's PostgreSQL schema on a real server (`PostgreSQLServer.shared`, a database of its
/// own for each test): made once, marked and versioned, refusing databases it must not touch, and
/// holding the constraints SQLite's schema holds.
@Suite(.enabled(if: PostgreSQLServer.unavailableReason == nil, "\(PostgreSQLServer.unavailableReason ?? "")"))
struct PostgreSQLSchemaTests {
    let url: String
    let connection: PostgreSQLConnection

    init() throws {
        url = try PostgreSQLServer.shared().makeDatabase()
        connection = try PostgreSQLConnection(url)
    }

    func count(_ table: String) throws -> Int64 {
        try connection.query("SELECT count(*) FROM \(table)").first!.int64(0)
    }

    /// Runs `sql`; returns the SQLSTATE it failed with, nil when it succeeded.
    func failure(_ sql: String, _ parameters: [PostgreSQLValue] = []) -> String? {
        do {
            try connection.query(sql, parameters)
            return nil
        } catch {
            return error.sqlState?.rawValue ?? "\(error)"
        }
    }

    @Test func anEmptyDatabaseIsMadeAStoreOnceAndMarked() throws {
        try PostgreSQLSchema.migrate(connection, name: "test")
        try PostgreSQLSchema.migrate(connection, name: "test")
        let row = try #require(try connection.query("SELECT application, version FROM sensorbridge_schema").first)
        #expect(try row.string(0) == "SnBr" && row.int64(1) == PostgreSQLSchema.version)
        #expect(PostgreSQLSchema.version == Schema.version, "the same numbering as SQLite's")
        #expect(try count("activity_types") == WorkoutActivityType.allCases.count)
        // Every table SQLite's schema has (but its id high-water mark) is here.
        let sqlite = try WorkoutStore(path: WorkoutStore.inMemoryPath)
        var sqliteTables = Set<String>()
        try sqlite.connection.statement("SELECT name FROM sqlite_master WHERE type = 'table'").forEachRow {
            sqliteTables.insert($0.text(0))
        }
        let tables = Set(try connection.query("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()").map { try $0.string(0) })
        #expect(sqliteTables.subtracting(["workout_id_high_water"]).subtracting(tables).isEmpty, "\(sqliteTables.subtracting(tables))")
    }

    @Test func aNewerOrForeignDatabaseIsRefusedUntouched() throws {
        try PostgreSQLSchema.migrate(connection, name: "rides")
        try connection.execute("UPDATE sensorbridge_schema SET version = 99")
        #expect(throws: WorkoutStoreError.newerSchema(path: "rides", version: 99, known: PostgreSQLSchema.version)) {
            try PostgreSQLSchema.migrate(connection, name: "rides")
        }
        #expect(try connection.query("SELECT version FROM sensorbridge_schema").first?.int64(0) == 99)

        let other = try PostgreSQLConnection(try PostgreSQLServer.shared().makeDatabase())
        try other.execute("CREATE TABLE invoices (id bigint PRIMARY KEY)")
        #expect(throws: WorkoutStoreError.notOurs(path: "shop", reason: "it holds tables and none of them is sensorbridge_schema")) {
            try PostgreSQLSchema.migrate(other, name: "shop")
        }
        #expect(try other.query("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()").first?.int64(0) == 1)
    }

    /// Bridges starting at once: each migrates under the advisory lock; the schema is made once.
    @Test func bridgesMigratingAtOnceMakeTheSchemaOnce() throws {
        let urls = [url, url, url, url]
        let failures = Mutex<[String]>([])
        onThreads(urls.count) { index in
            do {
                try PostgreSQLSchema.migrate(try PostgreSQLConnection(urls[index]), name: "shared")
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(try count("activity_types") == WorkoutActivityType.allCases.count)
    }

    @Test func theConstraintsAreSQLites() throws {
        try PostgreSQLSchema.migrate(connection, name: "test")
        let workout = """
            INSERT INTO workouts (start_date, anchor_offset_ns, duration_ns, active_duration_ns, activity_type,
                heart_rate_hold_ns, power_hold_ns, uuid, bridge, athlete)
            VALUES (0, 0, $1, $2, 'cycling', 5000000000, 3000000000, $3, $4, $5)
            """
        let uuid = PostgreSQLValue.text(UUID().uuidString.lowercased())
        #expect(failure(workout, [.int64(100), .int64(50), uuid, .text("garage"), .null]) == nil)
        #expect(failure(workout, [.int64(100), .int64(50), uuid, .text("garage"), .null]) == "23505", "the UUID twice")
        let another = PostgreSQLValue.text(UUID().uuidString.lowercased())
        #expect(failure(workout, [.int64(100), .int64(150), another, .text("garage"), .null]) == "23514", "active > duration")
        #expect(failure(workout, [.null, .int64(50), another, .text("garage"), .null]) == "23514", "half finished")
        #expect(failure(workout, [.int64(100), .int64(50), another, .text("my box"), .null]) == "23514", "a bridge id")
        #expect(failure(workout, [.int64(100), .int64(50), .null, .text("garage"), .null]) == "23502", "no UUID")
        #expect(failure(workout, [.int64(100), .int64(50), another, .text("garage"), .text("Anna")]) == nil)
        #expect(try connection.query("SELECT count(*) FROM workouts WHERE athlete = 'Anna'").first?.int64(0) == 1)

        // Ids are never given twice: a deleted workout's id is not the next one's.
        let ids = try connection.query("SELECT id FROM workouts ORDER BY id").map { try $0.int64(0) }
        try connection.execute("DELETE FROM workouts WHERE id = \(ids.last!)")
        #expect(failure(workout, [.int64(1), .int64(1), .text(UUID().uuidString), .text("garage"), .null]) == nil)
        #expect(try connection.query("SELECT max(id) FROM workouts").first?.int64(0) == ids.last! + 1)

        // Zone boundaries are a JSON array of 2 to 8 numbers; preferred ones have source user.
        let zones = "INSERT INTO zone_configurations (quantity_type, source, unit, boundaries) VALUES ($1, $2, $3, $4) RETURNING id"
        #expect(failure(zones, [1, "user", "W", "[120,140]"]) == "23514", "the unit of heart rate is count/min")
        #expect(failure(zones, [1, "user", "count/min", "[120]"]) == "23514")
        #expect(failure(zones, [1, "user", "count/min", "{\"a\":1}"]) == "23514")
        let user = try connection.query(zones, [1, "user", "count/min", "[120,140,155,170]"]).first!.int64(0)
        let system = try connection.query(zones, [1, "system", "count/min", "[110,130,150,170]"]).first!.int64(0)
        #expect(failure("INSERT INTO preferred_zone_configurations VALUES (1, $1)", [.int64(system)]) == "23514")
        #expect(failure("INSERT INTO preferred_zone_configurations VALUES (1, $1)", [.int64(user)]) == nil)

        // Birth dates are days that exist; athletes' names are unique in ASCII case, as on SQLite;
        // addresses upper case.
        #expect(failure("INSERT INTO profile (id, birth_date, power_zone_model) VALUES (1, '1990-02-30', '6')") == "22008")
        #expect(failure("INSERT INTO profile (id, power_zone_model) VALUES (2, '6')") == "23514", "one profile")
        let athlete = "INSERT INTO athletes (name, power_zone_model, heart_rate_zone_model) VALUES ($1, '6', 'reserve')"
        #expect(failure(athlete, ["Anna"]) == nil)
        #expect(failure(athlete, ["ANNA"]) == "23505")
        #expect(failure(athlete, ["Émile"]) == nil)
        #expect(failure(athlete, ["émile"]) == nil, "É and é are two names, as SQLite's NOCASE has them")
        #expect(failure("INSERT INTO athlete_sensors VALUES ('c4:7e:11:22:33:44', 1, 'power')") == "23514")
        #expect(failure("INSERT INTO athlete_sensors VALUES ('C4:7E:11:22:33:44', 1, 'power')") == nil)
    }
}
