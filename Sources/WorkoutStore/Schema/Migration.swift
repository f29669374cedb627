/// One numbered, named schema change. Applied once, in its own transaction, which also sets
/// `PRAGMA user_version` to its number; a migration that fails leaves the database as it was.
///
/// A migration that has shipped is never edited: later changes are new migrations.
struct Migration: Sendable {
    /// 1, 2, 3, ... in order; the schema version once it is applied.
    let version: Int64
    let name: String
    let apply: @Sendable (SQLiteConnection) throws -> Void

    init(_ version: Int64, _ name: String, sql: String) {
        self.version = version
        self.name = name
        self.apply = { try $0.execute(sql) }
    }

    init(_ version: Int64, _ name: String, apply: @escaping @Sendable (SQLiteConnection) throws -> Void) {
        self.version = version
        self.name = name
        self.apply = apply
    }

    /// Brings `connection` from its `user_version` to the last of `migrations` (numbered 1, 2, ...
    /// in order), each in its own transaction. The version is read again inside each transaction,
    /// so that when two processes open a store at once, a migration the other one applied first
    /// is not applied twice.
    ///
    /// - Throws: `WorkoutStoreError.newerSchema` when the database's version is newer than the last
    ///   migration (it was written by a newer build); nothing is changed then.
    static func migrate(_ connection: SQLiteConnection, with migrations: [Migration]) throws {
        let known = migrations.last?.version ?? 0
        for migration in migrations {
            // Already applied: no write lock is taken.
            guard try connection.userVersion < migration.version else { continue }
            try connection.transaction {
                let current = try connection.userVersion
                guard current <= known else {
                    throw WorkoutStoreError.newerSchema(path: connection.path, version: current, known: known)
                }
                guard current < migration.version else { return }
                try migration.apply(connection)
                try connection.setUserVersion(migration.version)
            }
        }
    }
}
