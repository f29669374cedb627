import Foundation
import SensorCore
import Testing
import SensorTestSupport
import Workouts
@testable import WorkoutStore
import Zones

/// A folder of its own under the system's temporary folder, deleted with everything in it when
/// the value goes away.
final class TemporaryFolder {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        chmod(path, 0o755)
        try? FileManager.default.removeItem(atPath: path)
    }

    /// `folder/name`.
    func file(_ name: String) -> String { path + "/" + name }
}

/// 2026-11-02T12:00:00Z: noon UTC, so the day is the same in every time zone from UTC-11 to UTC+11.
let noonNovember2 = Date(timeIntervalSince1970: 1_793_620_800)

/// A synthetic ride of `minutes` on `day` days after November 2, 2026 (noon UTC).
func ride(minutes: Int = 12, seed: UInt64 = 1, day: Int = 0, heartRateShift: Double = 0, runAfter: Int? = nil) throws -> Workout {
    try SyntheticRide.workout(
        seconds: minutes * 60, seed: seed, startDate: noonNovember2.addingTimeInterval(Double(day) * 86_400),
        heartRateShift: heartRateShift, runAfter: runAfter)
}

/// Re-bucketing of a workout's samples of `configuration`'s type with the default holds: the
/// reference every stored or recovered zone figure is checked against.
func rebucketed(_ workout: Workout, into configuration: WorkoutZoneConfiguration) throws -> WorkoutZoneGroup {
    WorkoutZoneGroup(
        rebucketing: workout.samples, into: configuration,
        timeline: try WorkoutTimeline(start: workout.start, end: workout.end, pauses: workout.pauses))
}

extension WorkoutStore {
    /// Rows in `table`, for checks that deletes cascade and failed writes leave nothing.
    func count(_ table: String) throws -> Int {
        try connection.statement("SELECT count(*) FROM \(table)").firstRow { $0.int(0) } ?? 0
    }
}

/// The two databases a store can be on. The store's tests that take a backend run on both, so
/// that the same calls mean the same on each (PostgreSQL on `PostgreSQLServer.shared`, a database
/// of its own for each test; skipped, with the reason, where the machine has no PostgreSQL).
enum StoreBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgreSQL

    /// SQLite, and PostgreSQL where the machine has it (CI has).
    static var available: [StoreBackend] { PostgreSQLServer.unavailableReason == nil ? allCases : [.sqlite] }

    var testDescription: String { rawValue }

    /// Where a new, empty store of this backend is: a file in `folder`, or a new database.
    func newAddress(in folder: TemporaryFolder) throws -> StoreAddress {
        switch self {
        case .sqlite: .sqlite(path: folder.file("workouts.sqlite"))
        case .postgreSQL: try StoreAddress.parse(try PostgreSQLServer.shared().makeDatabase())
        }
    }

    /// A new, empty store: in memory for SQLite, a new database for PostgreSQL.
    func emptyStore() throws -> WorkoutStore {
        switch self {
        case .sqlite: try WorkoutStore(path: WorkoutStore.inMemoryPath)
        case .postgreSQL: try WorkoutStore(address: try StoreAddress.parse(try PostgreSQLServer.shared().makeDatabase()))
        }
    }
}
