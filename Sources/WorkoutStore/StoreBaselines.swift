public import SensorCore

/// The obvious ways to store samples, which the store benchmark measures beside the store's own
/// (`swift run -c release sensorbridge-bench store`): one row per sample, in one transaction with
/// a reused prepared statement, or one autocommitted statement each. They write to a table of
/// their own in a database of their own, with the store's settings (WAL, `synchronous = FULL`).
@_spi(Benchmarks)
public final class StoreBaselines {
    private let connection: SQLiteConnection

    public init(path: String) throws(WorkoutStoreError) {
        do {
            connection = try SQLiteConnection(path: path)
            _ = try connection.scalarText("PRAGMA journal_mode = WAL")
            try connection.execute(
                """
                PRAGMA synchronous = FULL;
                CREATE TABLE IF NOT EXISTS sample_rows (
                    workout_id INTEGER NOT NULL,
                    position INTEGER NOT NULL,
                    offset_ns INTEGER NOT NULL,
                    value REAL,
                    quantity_type INTEGER NOT NULL,
                    sensor INTEGER NOT NULL,
                    PRIMARY KEY (workout_id, position)
                ) STRICT, WITHOUT ROWID;
                """)
        } catch {
            throw WorkoutStore.storeError(error, path: path)
        }
    }

    /// Inserts `samples` as rows of workout `workout`: in one transaction, or each in its own.
    public func insertRows(_ samples: [Sample], workout: Int64, oneTransaction: Bool) throws(WorkoutStoreError) {
        do {
            let insert = try connection.statement(
                """
                INSERT INTO sample_rows (workout_id, position, offset_ns, value, quantity_type, sensor)
                VALUES (?, ?, ?, ?, ?, ?)
                """)
            func insertAll() throws {
                for (position, sample) in samples.enumerated() {
                    try insert.run(
                        workout, position, sample.time.nanoseconds, sample.value, Int64(sample.type.rawValue),
                        Int64(sample.sensor.rawValue))
                }
            }
            if oneTransaction { try connection.transaction(insertAll) } else { try insertAll() }
        } catch {
            throw WorkoutStore.storeError(error, path: connection.path)
        }
    }
}
