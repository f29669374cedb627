public import Foundation
import SensorCore
import Workouts

extension WorkoutStore {
    /// The UUIDs of every workout in the store, finished or not.
    public func workoutUUIDs() throws(WorkoutStoreError) -> Set<UUID> {
        try perform {
            var uuids = Set<UUID>()
            try connection.statement("SELECT uuid FROM workouts").forEachRow { row in
                if let uuid = row.optionalText(0).flatMap(UUID.init(uuidString:)) { uuids.insert(uuid) }
            }
            return uuids
        }
    }

    /// Copies the finished workout `id` of `source` into this store, with its UUID, bridge,
    /// athlete and zone holds, in one transaction; returns its id here, or nil when a workout with
    /// that UUID is here already (copied before, or by another process at the same moment). So a
    /// copy made twice, or cut off and made again, leaves the workout here once.
    ///
    /// - Throws: `.unfinished` for a workout whose recording was never finished (recover it
    ///   first); this store's errors (`.server` when PostgreSQL went away: nothing was kept of
    ///   this workout there).
    public func copyWorkout(_ id: WorkoutID, from source: WorkoutStore) throws(WorkoutStoreError) -> WorkoutID? {
        let workout = try source.workout(id)
        let identity = try source.identity(of: id)
        let holds = try source.holds(of: id)
        do {
            return try perform {
                try connection.transaction { () throws -> WorkoutID? in
                    guard try workoutID(uuid: identity.uuid) == nil else { return nil }
                    return try insert(workout, maximumHolds: holds, id: nil, identity: identity)
                }
            }
        } catch {
            // Another process committed the same UUID between the check and the insert.
            if try workoutID(uuid: identity.uuid) != nil { return nil }
            throw error
        }
    }

    /// The zone holds workout `id` was classified with.
    func holds(of id: WorkoutID) throws(WorkoutStoreError) -> [QuantityType: Duration] {
        try perform {
            let holds = try connection.statement("SELECT heart_rate_hold_ns, power_hold_ns FROM workouts WHERE id = ?")
                .firstRow(id.rawValue) { row -> [QuantityType: Duration] in
                    [.heartRate: .nanoseconds(row.int64(0)), .cyclingPower: .nanoseconds(row.int64(1))]
                }
            guard let holds else { throw WorkoutStoreError.notFound(id) }
            return holds
        }
    }
}
