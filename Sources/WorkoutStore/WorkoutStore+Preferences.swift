public import Zones
import Workouts

extension WorkoutStore {
    /// The person's profile, zone models and preferred zones; empty preferences when none were saved.
    public func preferences() throws(WorkoutStoreError) -> ZonePreferences {
        try perform {
            var preferences = ZonePreferences()
            let columns = try profileColumns()
            try connection.statement("SELECT \(columns.list) FROM profile WHERE id = 1").forEachRow { row in
                let profile = try profile(from: row, columns)
                preferences = profile.preferences
            }
            var preferredIDs: [Int64] = []
            try connection.statement("SELECT configuration_id FROM preferred_zone_configurations ORDER BY quantity_type")
                .forEachRow { preferredIDs.append($0.int64(0)) }
            for id in preferredIDs { preferences.setPreferredConfiguration(try configuration(id: id)) }
            return preferences
        }
    }

    /// Replaces the stored profile, zone models and preferred zones with `preferences`, in one
    /// transaction, changed now (or at `changed`, a sync's stamp).
    public func savePreferences(_ preferences: ZonePreferences) throws(WorkoutStoreError) {
        try performTransaction { try writePreferences(preferences, changed: nil) }
    }

    func writePreferences(_ preferences: ZonePreferences, changed: Int64?) throws {
        let columns = try profileColumns()
        try connection.statement(
            """
            INSERT INTO profile (id, \(columns.list), changed_ms)
            VALUES (1, \(columns.placeholders), ?)
            ON CONFLICT (id) DO UPDATE SET \(columns.updates), changed_ms = excluded.changed_ms
            """
        ).run(arguments: columns.values(WorkoutProfile(preferences)) + [changed ?? Self.changeStamp()])
        try connection.execute("DELETE FROM preferred_zone_configurations")
        for configuration in preferences.preferredConfigurations.values {
            try connection.statement(
                "INSERT INTO preferred_zone_configurations (quantity_type, configuration_id) VALUES (?, ?)"
            ).run(Int64(configuration.quantityType.rawValue), try configurationID(configuration))
        }
    }
}
