import Testing
@testable import WorkoutStore

/// `--store` and `SENSORBRIDGE_STORE`: a file path, or a PostgreSQL URL read by libpq.
@Suite struct StoreAddressTests {
    @Test func pathsAreSQLiteFiles() throws {
        for path in ["workouts.sqlite", "/var/lib/sensorbridge/workouts.sqlite", "postgresql.sqlite", "./postgres://x"] {
            #expect(try StoreAddress.parse(path) == .sqlite(path: path))
        }
    }

    @Test func postgreSQLURLsAreNamedWithoutPasswordOrParameters() throws {
        let cases: [(String, String)] = [
            ("postgresql://rider@db.example.org/rides", "postgresql://rider@db.example.org/rides"),
            ("postgres://db.example.org:5433/rides?sslmode=require", "postgresql://db.example.org:5433/rides"),
            ("postgresql://rider@/rides?host=/run/postgresql", "postgresql://rider@/rides"),
            ("postgresql://rider@[::1]:5432/rides", "postgresql://rider@::1:5432/rides"),
        ]
        for (url, name) in cases {
            #expect(try StoreAddress.parse(url) == .postgreSQL(conninfo: url, name: name), "\(url)")
        }
    }

    @Test func aBadURLSaysWhatToWrite() {
        func reason(_ url: String) -> String? {
            do {
                _ = try StoreAddress.parse(url)
                return nil
            } catch {
                guard case .cannotOpen(_, let reason) = error else { return "\(error)" }
                return reason
            }
        }
        #expect(reason("postgresql://rider@db.example.org")?.contains("the URL names no database") == true)
        #expect(reason("postgresql://rider:secret@db.example.org/rides")?.contains("put it in ~/.pgpass") == true)
        #expect(reason("postgresql://db.example.org/rides?nosuchoption=1")?.contains("write postgresql://USER@HOST[:PORT]/DATABASE") == true)
        #expect(reason("postgresql://db.example.org/rides%zz")?.contains("percent") == true)
    }

    /// The advice that ends a store error fits the kind of store: about the URL and the server for
    /// PostgreSQL, about paths and files for SQLite.
    @Test func aPostgreSQLStoresErrorsAdviseOnTheURLAndServerNotOnFiles() {
        let fileAdvice = "give a path you can create files in"
        var errors: [WorkoutStoreError] = [
            .cannotOpen(path: "postgresql://rider@db.example.org/rides", reason: "permission denied for schema public"),
            .notOurs(path: "postgresql://rider@db.example.org/shop", reason: "it holds tables and none of them is sensorbridge_schema"),
        ]
        for url in ["postgresql://rider:secret@db.example.org/rides", "postgres://db.example.org/rides?nosuchoption=1"] {
            #expect(throws: WorkoutStoreError.self) { try StoreAddress.parse(url) }
            do { _ = try StoreAddress.parse(url) } catch { errors.append(error) }
        }
        for error in errors {
            #expect(!error.description.contains(fileAdvice) && !error.description.contains("file name"), "\(error)")
            #expect(error.description.contains("Give the URL") || error.description.contains("check the URL given with --store"), "\(error)")
        }
        #expect(errors[0].description.hasSuffix("that the server is running and that the user may use that database"))
        // A file's errors keep the advice about paths.
        #expect(WorkoutStoreError.cannotOpen(path: "/nowhere/workouts.sqlite", reason: "No such file").description.contains(fileAdvice))
        #expect(WorkoutStoreError.notOurs(path: "app.db", reason: "it is empty").description.contains("a new file name"))
    }
}
