import PostgreSQL

/// Where a store is: a SQLite file (the embedded default), or a PostgreSQL database shared by
/// several bridges, given as `postgresql://USER@HOST[:PORT]/DB` (libpq's URL, with its
/// `?host=/socket/dir` and other parameters) to `--store` or `SENSORBRIDGE_STORE`.
public enum StoreAddress: Sendable, Hashable {
    case sqlite(path: String)
    /// `conninfo` is what libpq connects with; `name` is how messages name the database: its URL
    /// without parameters and never with a password.
    case postgreSQL(conninfo: String, name: String)

    /// `text` as a store's address: a `postgresql://` or `postgres://` URL, else a file path.
    ///
    /// - Throws: `.cannotOpen` for a URL libpq cannot read, one without a database, or one holding
    ///   a password (a URL is visible to every user of the machine in `ps`; libpq reads passwords
    ///   from `~/.pgpass`, `PGPASSFILE` or `PGPASSWORD`).
    public static func parse(_ text: String) throws(WorkoutStoreError) -> StoreAddress {
        guard text.hasPrefix("postgresql://") || text.hasPrefix("postgres://") else { return .sqlite(path: text) }
        let options: [String: String]
        do {
            options = try PostgreSQLConnection.options(of: text)
        } catch {
            throw .cannotOpen(path: text, reason: "\(error.message); write postgresql://USER@HOST[:PORT]/DATABASE")
        }
        let user = options["user"].map { $0 + "@" } ?? ""
        let host = options["host"].map { $0.hasPrefix("/") ? "" : $0 } ?? ""
        let port = options["port"].map { ":" + $0 } ?? ""
        guard let database = options["dbname"], !database.isEmpty else {
            throw .cannotOpen(path: "postgresql://\(user)\(host)\(port)/", reason: "the URL names no database; write postgresql://USER@HOST[:PORT]/DATABASE")
        }
        let name = "postgresql://\(user)\(host)\(port)/\(database)"
        guard options["password"] == nil else {
            throw .cannotOpen(
                path: name,
                reason: "a password in the URL would be visible to every user of the machine in ps; put it in ~/.pgpass "
                    + "(HOST:PORT:DATABASE:USER:PASSWORD, chmod 600) or PGPASSFILE")
        }
        return .postgreSQL(conninfo: text, name: name)
    }
}
