public import Zones

extension WorkoutStore {
    /// The person's profile, power-zone model and preferred zones; empty preferences when none were saved.
    public func preferences() throws(WorkoutStoreError) -> ZonePreferences {
        try perform {
            var preferences = ZonePreferences()
            try connection.statement(
                """
                SELECT birth_date, age, resting_heart_rate, maximum_heart_rate, functional_threshold_power,
                    power_zone_model
                FROM profile WHERE id = 1
                """
            ).forEachRow { row in
                var birthDate: CalendarDate?
                if let text = row.optionalText(0) {
                    guard let date = CalendarDate(iso8601: text) else {
                        throw WorkoutStoreError.invalidData(path: path, reason: "the birth date \(text) is not a date")
                    }
                    birthDate = date
                }
                guard let model = PowerZoneModel(rawValue: row.text(5)) else {
                    throw WorkoutStoreError.invalidData(path: path, reason: "unknown power zone model \(row.text(5))")
                }
                preferences = ZonePreferences(
                    profile: AthleteProfile(
                        birthDate: birthDate, age: row.optionalInt(1), restingHeartRate: row.optionalInt(2),
                        maximumHeartRate: row.optionalInt(3), functionalThresholdPower: row.optionalInt(4)),
                    powerZoneModel: model)
            }
            var preferredIDs: [Int64] = []
            try connection.statement("SELECT configuration_id FROM preferred_zone_configurations ORDER BY quantity_type")
                .forEachRow { preferredIDs.append($0.int64(0)) }
            for id in preferredIDs { preferences.setPreferredConfiguration(try configuration(id: id)) }
            return preferences
        }
    }

    /// Replaces the stored profile, power-zone model and preferred zones with `preferences`, in one transaction.
    public func savePreferences(_ preferences: ZonePreferences) throws(WorkoutStoreError) {
        try performTransaction {
            let profile = preferences.profile
            try connection.statement(
                """
                INSERT OR REPLACE INTO profile (id, birth_date, age, resting_heart_rate, maximum_heart_rate,
                    functional_threshold_power, power_zone_model)
                VALUES (1, ?, ?, ?, ?, ?, ?)
                """
            ).run(
                profile.birthDate?.description, profile.age, profile.restingHeartRate, profile.maximumHeartRate,
                profile.functionalThresholdPower, preferences.powerZoneModel.rawValue)
            try connection.execute("DELETE FROM preferred_zone_configurations")
            for configuration in preferences.preferredConfigurations.values {
                try connection.statement(
                    "INSERT INTO preferred_zone_configurations (quantity_type, configuration_id) VALUES (?, ?)"
                ).run(Int64(configuration.quantityType.rawValue), try configurationID(configuration))
            }
        }
    }
}
