import Foundation
import PostgreSQL
import SensorTestSupport
import Synchronization
import Testing

/// The libpq binding against a real PostgreSQL: the shared test server (`PostgreSQLServer.shared`),
/// a database of its own for each test. Skipped, saying why, when PostgreSQL is not installed.
@Suite(.enabled(if: PostgreSQLServer.unavailableReason == nil, "\(PostgreSQLServer.unavailableReason ?? "")"))
struct PostgreSQLConnectionTests {
    /// A connection to a new database on the shared server.
    static func database() throws -> PostgreSQLConnection {
        try PostgreSQLConnection(PostgreSQLServer.shared().makeDatabase())
    }

    /// The columns the store needs, each kind once.
    static let rides = """
        CREATE TABLE rides (
            id bigint PRIMARY KEY,
            power double precision,
            name text,
            samples bytea,
            started timestamptz,
            finished boolean
        )
        """

    @Test func connectsAndSaysWhichServer() throws {
        let connection = try Self.database()
        #expect(connection.isConnected)
        #expect(connection.serverVersion >= 100000, "\(connection.serverVersion)")
        #expect(connection.serverVersionText.hasPrefix("\(connection.serverVersion / 10000)."), "\(connection.serverVersionText)")
        let rows = try connection.query("SELECT current_database(), current_user, $1::int8 + 1 AS next", [41])
        #expect(try rows.first?.string(0).hasPrefix("test_") == true)
        #expect(try rows.first?.string(1) == PostgreSQLServer.user)
        #expect(try rows.first?.int64(2) == 42)
        #expect(rows.first?.index(of: "next") == 2)
        #expect(connection.transactionState == .idle)
    }

    /// Parameters in, rows out: NULLs, unicode, a bytea with zero bytes and one of 1 MiB, extreme
    /// and special numbers, a timestamptz from its text.
    @Test func parametersAndRowsRoundTrip() throws {
        let connection = try Self.database()
        try connection.execute(Self.rides)
        var large = [UInt8](repeating: 0, count: 1 << 20)
        var generator = SystemRandomNumberGenerator()
        for index in large.indices where index % 3 != 0 { large[index] = generator.next() }
        let insert = "INSERT INTO rides (id, power, name, samples, started, finished) VALUES ($1, $2, $3, $4, $5, $6)"
        let rows: [[PostgreSQLValue]] = [
            [1, 251.25, "Col du Galibier — 2642 m ☀️", .bytea([0, 1, 0, 0xFF, 0]), "2026-05-01 10:00:00.123456+00", true],
            [2, nil, nil, nil, nil, nil],
            [.int64(.max), .double(-.greatestFiniteMagnitude), "", .bytea([]), "2026-05-01 12:00:00+02", false],
            [.int64(.min), .double(.infinity), "tab\tnewline\nquote'\"back\\slash", .bytea(large), nil, nil],
            [5, .double(.nan), "5", .bytea([0]), nil, nil],
            [6, .double(0.1 + 0.2), "x", nil, nil, nil],
        ]
        for row in rows { try connection.query(insert, row) }
        let read = try connection.query(
            "SELECT id, power, name, samples, extract(epoch FROM started), finished FROM rides ORDER BY id")
        #expect(read.map { try? $0.int64(0) } == [.min, 1, 2, 5, 6, .max])
        let byID = Dictionary(uniqueKeysWithValues: try read.map { (try $0.int64(0), $0) })

        let first = try #require(byID[1])
        #expect(try first.double(1) == 251.25)
        #expect(try first.string(2) == "Col du Galibier — 2642 m ☀️")
        #expect(try first.bytes(3) == [0, 1, 0, 0xFF, 0])
        #expect(try first.double(4) == 1_777_629_600.123456)
        #expect(try first.bool(5) == true)

        let nulls = try #require(byID[2])
        #expect((1...5).allSatisfy(nulls.isNull))
        #expect(try nulls.optionalDouble(1) == nil)
        #expect(nulls.optionalString(2) == nil)
        #expect(try nulls.optionalBytes(3) == nil)
        #expect(try nulls.optionalBool(5) == nil)

        let extremes = try #require(byID[.max])
        #expect(try extremes.double(1) == -.greatestFiniteMagnitude)
        #expect(try extremes.string(2) == "")
        #expect(try extremes.bytes(3) == [])
        #expect(try extremes.double(4) == 1_777_629_600)
        #expect(try extremes.bool(5) == false)

        let big = try #require(byID[.min])
        #expect(try big.double(1) == .infinity)
        #expect(try big.string(2) == "tab\tnewline\nquote'\"back\\slash")
        #expect(try big.bytes(3) == large)
        #expect(try big.data(3) == Data(large))

        #expect(try byID[5]?.double(1).isNaN == true)
        #expect(try byID[6]?.double(1) == 0.1 + 0.2)
    }

    /// A field read as a type it is not, or a NULL read as a value: `valueMismatch`, naming the column.
    @Test func readingTheWrongTypeIsAnError() throws {
        let connection = try Self.database()
        let row = try #require(try connection.query(#"SELECT 'abc' AS label, NULL::int8 AS nothing, 'xyz'::text AS word, '\x0g' AS hex"#).first)
        #expect(throws: PostgreSQLError.self) { try row.int64(0) }
        do {
            _ = try row.int64(1)
            Issue.record("a NULL read as a bigint")
        } catch {
            #expect(error.kind == .valueMismatch)
            #expect(error.message.contains("nothing"), "\(error)")
        }
        #expect(throws: PostgreSQLError.self) { try row.bool(2) }
        #expect(throws: PostgreSQLError.self) { try row.double(2) }
        #expect(throws: PostgreSQLError.self) { try row.bytes(3) }
        #expect(try row.bytes(2) == Array("xyz".utf8))  // bytea's escape format: plain characters are themselves
    }

    /// 10,000 rows in binary COPY (each kind of column, NULLs among them), read back equal; then
    /// text COPY with characters that need escaping.
    @Test func copyInWritesRowsInBulk() throws {
        let connection = try Self.database()
        try connection.execute("CREATE TABLE chunks (id bigint PRIMARY KEY, power double precision, name text, samples bytea, ok boolean)")
        let rows: [[PostgreSQLValue]] = (0..<10_000).map { index in
            let bytes = (0..<(index % 300)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }
            return [
                .int64(Int64(index) * 1_000_003 - 5_000_000_000),
                index % 10 == 0 ? .null : .double(Double(index) / 7),
                index % 11 == 0 ? .null : .text("chunk №\(index)\t\\"),
                index % 13 == 0 ? .null : .bytea(bytes),
                index % 17 == 0 ? .null : .bool(index % 2 == 0),
            ]
        }
        let copied = try connection.copyIn(table: "chunks", columns: ["id", "power", "name", "samples", "ok"], rows: rows)
        #expect(copied == 10_000)
        let read = try connection.query("SELECT id, power, name, samples, ok FROM chunks ORDER BY id")
        #expect(read.count == rows.count)
        let back: [[PostgreSQLValue]] = try read.map { row in
            [
                .int64(try row.int64(0)),
                try row.optionalDouble(1).map(PostgreSQLValue.double) ?? .null,
                row.optionalString(2).map(PostgreSQLValue.text) ?? .null,
                try row.optionalBytes(3).map(PostgreSQLValue.bytea) ?? .null,
                try row.optionalBool(4).map(PostgreSQLValue.bool) ?? .null,
            ]
        }
        #expect(back == rows)

        try connection.execute("CREATE TABLE notes (id bigint, note text, samples bytea, at timestamptz)")
        let notes: [[PostgreSQLValue]] = [
            [1, "a\tb\nc\\d\re ünïcode", .bytea([0, 0x5C, 0x0A, 0xFF]), "2026-05-01 10:00:00+00"],
            [2, nil, nil, nil],
        ]
        #expect(try connection.copyIn(table: "notes", columns: ["id", "note", "samples", "at"], rows: notes, format: .text) == 2)
        let text = try connection.query("SELECT note, samples, extract(epoch FROM at) FROM notes ORDER BY id")
        #expect(try text[0].string(0) == "a\tb\nc\\d\re ünïcode")
        #expect(try text[0].bytes(1) == [0, 0x5C, 0x0A, 0xFF])
        #expect(try text[0].double(2) == 1_777_629_600)
        #expect(text[1].isNull(0) && text[1].isNull(1) && text[1].isNull(2))
    }

    /// A copy fails as a whole: a row with too few values, or a value of the wrong binary type
    /// (`22P03`), keeps none of its rows; the connection goes on working.
    @Test func aFailedCopyKeepsNothing() throws {
        let connection = try Self.database()
        try connection.execute("CREATE TABLE chunks (id bigint, small integer)")
        let short: [[PostgreSQLValue]] = [[1, 2], [3]]
        do {
            try connection.copyIn(table: "chunks", columns: ["id", "small"], rows: short)
            Issue.record("a short row was copied")
        } catch {
            #expect(error.kind == .copyRowMismatch, "\(error)")
        }
        // integer is 4 bytes in binary; an int64 is 8.
        do {
            try connection.copyIn(table: "chunks", columns: ["id", "small"], rows: [[1, 2]])
            Issue.record("an int8 was copied into an integer column")
        } catch {
            #expect(error.kind == .queryFailed)
            #expect(error.sqlState == .invalidBinaryRepresentation, "\(error)")
        }
        do {
            try connection.copyIn(table: "missing", columns: ["id"], rows: [[1]])
            Issue.record("copied into a missing table")
        } catch {
            #expect(error.sqlState == .undefinedTable, "\(error)")
        }
        #expect(try connection.query("SELECT count(*) FROM chunks").first?.int64(0) == 0)
        // In text the server reads each value with its column's input function.
        #expect(try connection.copyIn(table: "chunks", columns: ["id", "small"], rows: [[1, 2]], format: .text) == 1)
        #expect(connection.transactionState == .idle)
    }

    /// A failing statement is a `PostgreSQLError` with the server's SQLSTATE, message and the
    /// statement's start; in a transaction, what ran before it is rolled back.
    @Test func failedStatementsAreTypedAndRollBack() throws {
        let connection = try Self.database()
        do {
            try connection.query("SELECT * FROM no_such_table WHERE id = $1", [1])
            Issue.record("a missing table was read")
        } catch {
            #expect(error.kind == .queryFailed)
            #expect(error.sqlState == .undefinedTable)
            #expect(error.message.contains("no_such_table"))
            #expect(error.description.contains("42P01"))
            #expect(error.description.contains("in: SELECT * FROM no_such_table"), "\(error)")
        }
        let long = "SELECT " + String(repeating: "1 + ", count: 50) + "nonsense"
        do {
            try connection.execute(long)
            Issue.record("nonsense ran")
        } catch {
            #expect(error.description.hasSuffix("in: " + long.prefix(80) + " …"), "\(error)")
        }

        try connection.execute(Self.rides)
        try connection.query("INSERT INTO rides (id, name) VALUES (1, 'first')")
        do {
            try connection.transaction { connection in
                try connection.query("INSERT INTO rides (id, name) VALUES (2, 'second')")
                try connection.query("INSERT INTO rides (id, name) VALUES ($1, 'again')", [1])
            }
            Issue.record("a duplicate key was inserted")
        } catch let error as PostgreSQLError {
            #expect(error.isUniqueViolation, "\(error)")
            #expect(!error.isSerializationFailure)
            #expect(error.detail?.contains("(id)=(1)") == true, "\(error)")
        }
        #expect(connection.transactionState == .idle)
        #expect(try connection.query("SELECT id FROM rides ORDER BY id").map { try $0.int64(0) } == [1])

        // An error caught inside the body still fails the transaction: rolled back, not committed in part.
        do {
            try connection.transaction { connection in
                try connection.query("INSERT INTO rides (id, name) VALUES (3, 'third')")
                _ = try? connection.query("INSERT INTO rides (id) VALUES (1)")
            }
            Issue.record("a failed transaction was committed")
        } catch let error as PostgreSQLError {
            #expect(error.sqlState == .inFailedTransaction, "\(error)")
        }
        #expect(try connection.query("SELECT id FROM rides ORDER BY id").map { try $0.int64(0) } == [1])

        // And one that succeeds is committed.
        let inserted = try connection.transaction { connection in
            try connection.query("INSERT INTO rides (id) VALUES (4), (5) RETURNING id").count
        }
        #expect(inserted == 2)
        #expect(try connection.query("SELECT count(*) FROM rides").first?.int64(0) == 3)
    }

    /// A repeatable-read transaction that updates a row another connection changed since its
    /// snapshot fails with `serialization_failure` (40001), a transaction to run again.
    @Test func aConcurrentUpdateIsASerializationFailure() throws {
        let url = try PostgreSQLServer.shared().makeDatabase()
        let first = try PostgreSQLConnection(url)
        let second = try PostgreSQLConnection(url)
        try first.execute("CREATE TABLE counters (id bigint PRIMARY KEY, n bigint NOT NULL); INSERT INTO counters VALUES (1, 0)")
        do {
            try first.transaction { first in
                try first.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                #expect(try first.query("SELECT n FROM counters").first?.int64(0) == 0)  // the snapshot
                try second.query("UPDATE counters SET n = 5 WHERE id = 1")  // committed by itself
                try first.query("UPDATE counters SET n = n + 1 WHERE id = 1")
            }
            Issue.record("an update of a row changed since the snapshot was committed")
        } catch let error as PostgreSQLError {
            #expect(error.sqlState == .serializationFailure, "\(error)")
            #expect(error.isSerializationFailure)
            #expect(!error.isUniqueViolation)
        }
        #expect(first.transactionState == .idle)
        #expect(try first.query("SELECT n FROM counters").first?.int64(0) == 5)
    }

    /// Two connections at once: the second's update of a row the first has locked waits (the
    /// server lists its lock as not granted) until the first commits, then applies on top of it;
    /// `NOWAIT` fails at once with `lock_not_available`.
    @Test(.timeLimit(.minutes(10))) func aSecondConnectionWaitsForARowLock() throws {
        let url = try PostgreSQLServer.shared().makeDatabase()
        let first = try PostgreSQLConnection(url)
        try first.execute("CREATE TABLE counters (id bigint PRIMARY KEY, n bigint NOT NULL); INSERT INTO counters VALUES (1, 0)")
        try first.execute("BEGIN")
        try first.query("UPDATE counters SET n = n + 1 WHERE id = 1")

        let backend = Mutex<Int64?>(nil)
        let outcome = Mutex<Result<Int64, PostgreSQLError>?>(nil)
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            defer { finished.signal() }
            do throws(PostgreSQLError) {
                let second = try PostgreSQLConnection(url)
                let pid = try second.query("SELECT pg_backend_pid()").first?.int64(0)
                backend.withLock { $0 = pid }
                started.signal()
                let n = try second.query("UPDATE counters SET n = n + 10 WHERE id = 1 RETURNING n").first?.int64(0) ?? -1
                outcome.withLock { $0 = .success(n) }
            } catch {
                started.signal()
                outcome.withLock { $0 = .failure(error) }
            }
        }.start()
        #expect(started.wait(timeout: .now() + 20) == .success)
        let pid = try #require(backend.withLock { $0 })

        // A third connection watches the second wait for the row's lock (bounded: 20 s).
        let observer = try PostgreSQLConnection(url)
        let deadline = ContinuousClock.now + .seconds(20)
        var waiting = false
        while !waiting && ContinuousClock.now < deadline {
            waiting = try observer.query("SELECT count(*) FROM pg_locks WHERE pid = $1 AND NOT granted", [.int64(pid)]).first?.int64(0) ?? 0 > 0
            if !waiting { Thread.sleep(forTimeInterval: 0.02) }
        }
        #expect(waiting, "the second connection never waited for the lock")
        #expect(outcome.withLock { $0 } == nil)
        do {
            try observer.query("SELECT n FROM counters WHERE id = 1 FOR UPDATE NOWAIT")
            Issue.record("a locked row was locked again")
        } catch {
            #expect(error.sqlState == .lockNotAvailable, "\(error)")
        }

        try first.execute("COMMIT")
        #expect(finished.wait(timeout: .now() + 20) == .success)
        #expect(try outcome.withLock { $0 }?.get() == 11)
        #expect(try observer.query("SELECT n FROM counters").first?.int64(0) == 11)
    }

    /// A bad URL, an unknown database and a folder without a server: `connectionFailed` with
    /// libpq's or the server's reason.
    @Test func connectingToNothingIsAClearError() throws {
        for (conninfo, says) in [
            ("postgresql://[oops", "IPv6 host address in URI"),
            ("postgresql://user@/db?host=/nonexistent-sensorbridge&port=5432&connect_timeout=5", "/nonexistent-sensorbridge"),
            ("this is not = a conninfo", "missing \"=\" after \"this\""),
        ] {
            do {
                _ = try PostgreSQLConnection(conninfo)
                Issue.record("connected to \(conninfo)")
            } catch {
                #expect(error.kind == .connectionFailed)
                #expect(error.message.contains(says), "\(conninfo): \(error)")
                #expect(error.description.hasPrefix("PostgreSQL connection failed: "))
            }
        }
        let server = try PostgreSQLServer.shared()
        do {
            _ = try PostgreSQLConnection(server.url(database: "no_such_database"))
            Issue.record("connected to a missing database")
        } catch {
            #expect(error.kind == .connectionFailed)
            #expect(error.message.contains("no_such_database"), "\(error)")
        }
    }
}

/// A server of its own, stopped under a connection.
@Suite(.enabled(if: PostgreSQLServer.unavailableReason == nil, "\(PostgreSQLServer.unavailableReason ?? "")"))
struct PostgreSQLServerLossTests {
    /// The server stopped while connected: the next statement throws `connectionLost` (no crash),
    /// and so does every one after it; connecting again fails; the folder is gone.
    @Test(.timeLimit(.minutes(10))) func theServerStoppingIsAClearError() throws {
        let server = try PostgreSQLServer()
        let connection = try PostgreSQLConnection(server.makeDatabase())
        try connection.execute("CREATE TABLE t (id bigint)")
        #expect(try connection.query("SELECT 1").count == 1)
        let url = server.url(database: "postgres")
        server.stop()
        #expect(!FileManager.default.fileExists(atPath: server.directory.path))
        for _ in 0..<2 {
            do {
                try connection.query("INSERT INTO t VALUES ($1)", [1])
                Issue.record("a statement ran on a stopped server")
            } catch {
                #expect(error.isConnectionLost, "\(error)")
                #expect(error.description.hasPrefix("PostgreSQL connection lost: "), "\(error)")
            }
        }
        #expect(!connection.isConnected)
        #expect(connection.transactionState == .unknown)
        #expect(throws: PostgreSQLError.self) { try connection.copyIn(table: "t", columns: ["id"], rows: [[1]]) }
        do {
            _ = try PostgreSQLConnection(url)
            Issue.record("connected to a stopped server")
        } catch {
            #expect(error.kind == .connectionFailed, "\(error)")
        }
    }
}
