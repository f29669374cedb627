import Foundation
public import Zones

/// A person whose workouts a box records, by name: `sensorbridge athletes add Anna`. Several
/// athletes share a box (a family's trainer, a gym's class), each with a profile and preferred
/// zones of their own and their own sensors. The box's own profile (`sensorbridge profile`) is
/// the one used when no athlete is named.
///
/// 1 to 64 characters, none of them a control character, with no space at either end. Names are
/// compared without regard to ASCII case: `anna` names the athlete added as `Anna`.
public struct AthleteName: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: String

    public init?(rawValue text: String) {
        guard (1 ... 64).contains(text.count), text.trimmingCharacters(in: .whitespaces) == text,
            !text.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) })
        else { return nil }
        rawValue = text
    }

    /// `text` as an athlete's name, or a usage message for `label` (`--athlete`).
    public static func parse(_ text: String, label: String) -> Result<AthleteName, AthleteNameError> {
        AthleteName(rawValue: text).map { .success($0) } ?? .failure(AthleteNameError(text: text, label: label))
    }

    public var description: String { rawValue }

    public static func < (lhs: AthleteName, rhs: AthleteName) -> Bool {
        lhs.rawValue.lowercased() < rhs.rawValue.lowercased()
    }
}

/// A name that cannot be an athlete's.
public struct AthleteNameError: Error, Sendable, Hashable, CustomStringConvertible {
    public let text: String
    public let label: String

    public var description: String {
        "\(label) '\(text)': give a name of 1 to 64 characters, without control characters or spaces at either end"
    }
}

/// What a sensor does for its athlete.
public enum SensorRole: String, Sendable, Hashable, CaseIterable {
    case heartRate = "heart-rate"
    case power
}

/// An athlete as stored: profile and preferred zones, and the sensors assigned to them.
public struct AthleteRecord: Sendable, Hashable {
    public let name: AthleteName
    public let preferences: ZonePreferences
    /// The address of each assigned sensor, by role.
    public let sensors: [SensorRole: String]
}

extension WorkoutStore {
    /// The stored athletes, by name.
    public func athletes() throws(WorkoutStoreError) -> [AthleteRecord] {
        try perform {
            var stored: [(id: Int64, name: AthleteName)] = []
            try connection.statement("SELECT id, name FROM athletes ORDER BY \(connection.dialect.caseless("name"))").forEachRow { row in
                stored.append((row.int64(0), try athleteName(row.text(1))))
            }
            return try stored.map { try record(id: $0.id, name: $0.name) }
        }
    }

    /// The athlete called `name` (without regard to ASCII case), or nil.
    public func athlete(named name: AthleteName) throws(WorkoutStoreError) -> AthleteRecord? {
        try perform { try storedAthlete(name).map { try record(id: $0.id, name: $0.name) } }
    }

    /// Adds `name` with `preferences`.
    ///
    /// - Throws: `.athleteExists` when an athlete has that name (in any case).
    public func addAthlete(_ name: AthleteName, preferences: ZonePreferences) throws(WorkoutStoreError) {
        try performTransaction {
            if let existing = try storedAthlete(name) { throw WorkoutStoreError.athleteExists(existing.name.rawValue) }
            let id = try connection.statement(
                "INSERT INTO athletes (name, power_zone_model, heart_rate_zone_model) VALUES (?, '6', 'reserve') RETURNING id"
            ).firstRow(name.rawValue) { $0.int64(0) }!
            try writeAthletePreferences(preferences, id: id)
        }
    }

    /// Deletes the athlete `name` with their profile, zones and sensor assignments; their
    /// workouts stay, and keep the name.
    ///
    /// - Throws: `.noAthlete`.
    public func removeAthlete(_ name: AthleteName) throws(WorkoutStoreError) {
        try performTransaction {
            try connection.statement("DELETE FROM athletes WHERE id = ?").run(try requiredAthleteID(name))
        }
    }

    /// Assigns the sensor at `address` to `name` in `role`: it replaces the athlete's sensor of
    /// that role, and a sensor is one athlete's, so another athlete who had it loses it.
    ///
    /// - Throws: `.noAthlete`.
    public func assignSensor(_ address: String, role: SensorRole, to name: AthleteName) throws(WorkoutStoreError) {
        try performTransaction {
            let id = try requiredAthleteID(name)
            try connection.statement("DELETE FROM athlete_sensors WHERE address = ? OR (athlete_id = ? AND role = ?)")
                .run(address, id, role.rawValue)
            try connection.statement("INSERT INTO athlete_sensors (address, athlete_id, role) VALUES (?, ?, ?)")
                .run(address, id, role.rawValue)
        }
    }

    /// The preferences of `athlete`, or the box's own (`preferences()`) for nil.
    ///
    /// - Throws: `.noAthlete`.
    public func preferences(of athlete: AthleteName?) throws(WorkoutStoreError) -> ZonePreferences {
        guard let athlete else { return try preferences() }
        return try perform { try athletePreferences(id: try requiredAthleteID(athlete)) }
    }

    /// Replaces the preferences of `athlete`, or the box's own for nil.
    ///
    /// - Throws: `.noAthlete`.
    public func savePreferences(_ preferences: ZonePreferences, for athlete: AthleteName?) throws(WorkoutStoreError) {
        guard let athlete else { return try savePreferences(preferences) }
        try performTransaction { try writeAthletePreferences(preferences, id: try requiredAthleteID(athlete)) }
    }

    /// The row id and stored name of the athlete called `name` (without regard to ASCII case), or nil.
    private func storedAthlete(_ name: AthleteName) throws -> (id: Int64, name: AthleteName)? {
        let caseless = connection.dialect.caseless
        return try connection.statement("SELECT id, name FROM athletes WHERE \(caseless("name")) = \(caseless("?"))").firstRow(name.rawValue) {
            ($0.int64(0), try athleteName($0.text(1)))
        }
    }

    private func requiredAthleteID(_ name: AthleteName) throws -> Int64 {
        guard let stored = try storedAthlete(name) else { throw WorkoutStoreError.noAthlete(name.rawValue) }
        return stored.id
    }

    private func athleteName(_ text: String) throws -> AthleteName {
        guard let name = AthleteName(rawValue: text) else {
            throw WorkoutStoreError.invalidData(path: path, reason: "the athlete name \(text) is not one")
        }
        return name
    }

    /// The athlete of row `id`: preferences and sensors.
    private func record(id: Int64, name: AthleteName) throws -> AthleteRecord {
        var sensors: [SensorRole: String] = [:]
        try connection.statement("SELECT role, address FROM athlete_sensors WHERE athlete_id = ?").forEachRow(id) { row in
            if let role = SensorRole(rawValue: row.text(0)) { sensors[role] = row.text(1) }
        }
        return AthleteRecord(name: name, preferences: try athletePreferences(id: id), sensors: sensors)
    }

    private func athletePreferences(id: Int64) throws -> ZonePreferences {
        var preferences = try connection.statement("SELECT \(Self.profileColumns) FROM athletes WHERE id = ?")
            .firstRow(id) { try profile(from: $0).preferences } ?? ZonePreferences()
        var preferredIDs: [Int64] = []
        try connection.statement(
            "SELECT configuration_id FROM athlete_preferred_zone_configurations WHERE athlete_id = ? ORDER BY quantity_type"
        ).forEachRow(id) { preferredIDs.append($0.int64(0)) }
        for preferred in preferredIDs { preferences.setPreferredConfiguration(try configuration(id: preferred)) }
        return preferences
    }

    private func writeAthletePreferences(_ preferences: ZonePreferences, id: Int64) throws {
        let profile = preferences.profile
        try connection.statement(
            """
            UPDATE athletes SET birth_date = ?, age = ?, resting_heart_rate = ?, maximum_heart_rate = ?,
                functional_threshold_power = ?, power_zone_model = ?, lactate_threshold_heart_rate = ?, heart_rate_zone_model = ?
            WHERE id = ?
            """
        ).run(
            profile.birthDate?.description, profile.age, profile.restingHeartRate, profile.maximumHeartRate,
            profile.functionalThresholdPower, preferences.powerZoneModel.rawValue, profile.lactateThresholdHeartRate,
            preferences.heartRateZoneModel.rawValue, id)
        try connection.statement("DELETE FROM athlete_preferred_zone_configurations WHERE athlete_id = ?").run(id)
        for configuration in preferences.preferredConfigurations.values {
            try connection.statement(
                "INSERT INTO athlete_preferred_zone_configurations (athlete_id, quantity_type, configuration_id) VALUES (?, ?, ?)"
            ).run(id, Int64(configuration.quantityType.rawValue), try configurationID(configuration))
        }
    }
}
