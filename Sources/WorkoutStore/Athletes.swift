import Foundation
import Workouts
public import Zones

/// A person whose workouts a box records, by name: `sensorbridge athletes add Anna`. Several
/// athletes share a box (a family's trainer, a gym's class), each with a profile and preferred
/// zones of their own and their own sensors. The box's own profile (`sensorbridge profile`) is
/// the one used when no athlete is named.
///
/// 1 to 64 characters as a person counts them (grapheme clusters: `é` is one however it is
/// encoded, and so is a flag), none of them a control character, with no space at either end, and
/// at most 1024 Unicode code points (what the stores' own checks allow, which no real name of 64
/// characters comes near). Names are compared as a person would: with full Unicode case folding
/// and canonical equivalence, so `anna` names the athlete added as `Anna`, `émile` (composed or
/// not) the one added as `Émile`, and `STRASSE` the one added as `Straße`.
public struct AthleteName: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: String
    /// The name case-folded; `String` compares and hashes it by canonical equivalence.
    private let key: String

    /// The most code points a name may have: the stores' `CHECK (length(name) BETWEEN 1 AND 1024)`.
    public static let maximumCodePoints = 1024

    public init?(rawValue text: String) {
        guard (1 ... 64).contains(text.count), text.unicodeScalars.count <= Self.maximumCodePoints,
            text.trimmingCharacters(in: .whitespaces) == text,
            !text.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) })
        else { return nil }
        rawValue = text
        key = text.folding(options: .caseInsensitive, locale: nil)
    }

    /// `text` as an athlete's name, or a usage message for `label` (`--athlete`).
    public static func parse(_ text: String, label: String) -> Result<AthleteName, AthleteNameError> {
        AthleteName(rawValue: text).map { .success($0) } ?? .failure(AthleteNameError(text: text, label: label))
    }

    public var description: String { rawValue }

    /// Whether the two name one person (`Émile` and `émile`).
    public static func == (lhs: AthleteName, rhs: AthleteName) -> Bool { lhs.key == rhs.key }

    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    public static func < (lhs: AthleteName, rhs: AthleteName) -> Bool { lhs.key < rhs.key }
}

/// A name that cannot be an athlete's.
public struct AthleteNameError: Error, Sendable, Hashable, CustomStringConvertible {
    public let text: String
    public let label: String

    public var description: String {
        if text.count <= 64, text.unicodeScalars.count > AthleteName.maximumCodePoints {
            return "\(label) '\(text)': its \(text.count) characters are \(text.unicodeScalars.count) Unicode code points with "
                + "their accents and joiners; give a name of at most \(AthleteName.maximumCodePoints)"
        }
        return "\(label) '\(text)': give a name of 1 to 64 characters, without control characters or spaces at either end"
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
            try storedAthletes().sorted { $0.name < $1.name }.map { try record(id: $0.id, name: $0.name) }
        }
    }

    /// The athlete called `name` (as `AthleteName` compares names), or nil.
    public func athlete(named name: AthleteName) throws(WorkoutStoreError) -> AthleteRecord? {
        try perform { try storedAthlete(name).map { try record(id: $0.id, name: $0.name) } }
    }

    /// Adds `name` with `preferences`.
    ///
    /// - Throws: `.athleteExists` when an athlete has that name (in any case or Unicode form).
    public func addAthlete(_ name: AthleteName, preferences: ZonePreferences) throws(WorkoutStoreError) {
        try performTransaction {
            if let existing = try storedAthlete(name) { throw WorkoutStoreError.athleteExists(existing.name.rawValue) }
            try insertAthlete(name, preferences: preferences, changed: Self.changeStamp())
        }
    }

    /// Deletes the athlete `name` with their profile, zones and sensor assignments; their
    /// workouts stay, and keep the name.
    ///
    /// - Throws: `.noAthlete`.
    public func removeAthlete(_ name: AthleteName) throws(WorkoutStoreError) {
        try performTransaction {
            guard let stored = try storedAthlete(name) else { throw WorkoutStoreError.noAthlete(name.rawValue) }
            try deleteAthlete(stored, removed: Self.changeStamp())
        }
    }

    /// Assigns the sensor at `address` to `name` in `role`: it replaces the athlete's sensor of
    /// that role, and a sensor is one athlete's, so another athlete who had it loses it.
    ///
    /// - Throws: `.noAthlete`.
    public func assignSensor(_ address: String, role: SensorRole, to name: AthleteName) throws(WorkoutStoreError) {
        try performTransaction {
            let id = try requiredAthleteID(name)
            let changed = Self.changeStamp()
            try assign(address, role: role, to: id, changed: changed)
            try stamp(id, changed)
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
        try performTransaction {
            let id = try requiredAthleteID(athlete)
            try writeAthletePreferences(preferences, id: id)
            try stamp(id, Self.changeStamp())
        }
    }

    /// The time of a change as stored (`changed_ms`, `removed_ms`): milliseconds since 1970.
    static func changeStamp(_ date: Date = Date()) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    /// A new athlete row with `preferences`, changed at `changed`; a removal of that name kept for
    /// sync is forgotten. Its id.
    @discardableResult
    func insertAthlete(_ name: AthleteName, preferences: ZonePreferences, changed: Int64) throws -> Int64 {
        let id = try connection.statement(
            "INSERT INTO athletes (name, power_zone_model, heart_rate_zone_model, changed_ms) VALUES (?, '6', 'reserve', ?) RETURNING id"
        ).firstRow(name.rawValue, changed) { $0.int64(0) }!
        try writeAthletePreferences(preferences, id: id)
        try forgetRemoval(of: name)
        return id
    }

    /// Deletes `stored` with its zones and sensors, and keeps that it was removed at `removed`
    /// (for sync: the removal wins over changes made before it elsewhere).
    func deleteAthlete(_ stored: (id: Int64, name: AthleteName), removed: Int64) throws {
        try connection.statement("DELETE FROM athletes WHERE id = ?").run(stored.id)
        try keepRemoval(of: stored.name, at: removed)
    }

    /// Keeps that `name` was removed at `removed`, in place of an earlier removal of that name.
    func keepRemoval(of name: AthleteName, at removed: Int64) throws {
        try forgetRemoval(of: name)
        try connection.statement("INSERT INTO removed_athletes (name, removed_ms) VALUES (?, ?)").run(name.rawValue, removed)
    }

    /// Drops the removal kept for `name` (as names compare), if any.
    private func forgetRemoval(of name: AthleteName) throws {
        for removal in try removedAthletes() where removal.name == name {
            try connection.statement("DELETE FROM removed_athletes WHERE name = ?").run(removal.name.rawValue)
        }
    }

    /// The athletes removed, with when.
    func removedAthletes() throws -> [RemovedAthlete] {
        var removed: [RemovedAthlete] = []
        try connection.statement("SELECT name, removed_ms FROM removed_athletes").forEachRow { row in
            removed.append(RemovedAthlete(name: try athleteName(row.text(0)), removed: row.int64(1)))
        }
        return removed
    }

    /// Gives the sensor at `address` to athlete `id` in `role`, in place of their sensor of that
    /// role; an athlete who had it loses it, a change made at `changed` to them too.
    func assign(_ address: String, role: SensorRole, to id: Int64, changed: Int64) throws {
        var robbed: [Int64] = []
        try connection.statement("SELECT athlete_id FROM athlete_sensors WHERE address = ? AND athlete_id <> ?")
            .forEachRow(address, id) { robbed.append($0.int64(0)) }
        try connection.statement("DELETE FROM athlete_sensors WHERE address = ? OR (athlete_id = ? AND role = ?)")
            .run(address, id, role.rawValue)
        try connection.statement("INSERT INTO athlete_sensors (address, athlete_id, role) VALUES (?, ?, ?)")
            .run(address, id, role.rawValue)
        for other in robbed { try stamp(other, changed, onlyLater: true) }
    }

    /// Sets when athlete `id` last changed; with `onlyLater`, only to a later time than stored.
    func stamp(_ id: Int64, _ changed: Int64, onlyLater: Bool = false) throws {
        if onlyLater {
            try connection.statement("UPDATE athletes SET changed_ms = ? WHERE id = ? AND changed_ms < ?").run(changed, id, changed)
        } else {
            try connection.statement("UPDATE athletes SET changed_ms = ? WHERE id = ?").run(changed, id)
        }
    }

    /// The row id and stored name of the athlete called `name` (as `AthleteName` compares names),
    /// or nil. Compared here, not in SQL: neither database folds case or compares canonically
    /// (SQLite's NOCASE and the PostgreSQL index fold ASCII only), and a box has few athletes.
    func storedAthlete(_ name: AthleteName) throws -> (id: Int64, name: AthleteName)? {
        try storedAthletes().first { $0.name == name }
    }

    func storedAthletes() throws -> [(id: Int64, name: AthleteName)] {
        var stored: [(id: Int64, name: AthleteName)] = []
        try connection.statement("SELECT id, name FROM athletes").forEachRow { row in
            stored.append((row.int64(0), try athleteName(row.text(1))))
        }
        return stored
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
    func record(id: Int64, name: AthleteName) throws -> AthleteRecord {
        var sensors: [SensorRole: String] = [:]
        try connection.statement("SELECT role, address FROM athlete_sensors WHERE athlete_id = ?").forEachRow(id) { row in
            if let role = SensorRole(rawValue: row.text(0)) { sensors[role] = row.text(1) }
        }
        return AthleteRecord(name: name, preferences: try athletePreferences(id: id), sensors: sensors)
    }

    private func athletePreferences(id: Int64) throws -> ZonePreferences {
        let columns = try profileColumns()
        var preferences = try connection.statement("SELECT \(columns.list) FROM athletes WHERE id = ?")
            .firstRow(id) { try profile(from: $0, columns).preferences } ?? ZonePreferences()
        var preferredIDs: [Int64] = []
        try connection.statement(
            "SELECT configuration_id FROM athlete_preferred_zone_configurations WHERE athlete_id = ? ORDER BY quantity_type"
        ).forEachRow(id) { preferredIDs.append($0.int64(0)) }
        for preferred in preferredIDs { preferences.setPreferredConfiguration(try configuration(id: preferred)) }
        return preferences
    }

    func writeAthletePreferences(_ preferences: ZonePreferences, id: Int64) throws {
        let columns = try profileColumns()
        try connection.statement("UPDATE athletes SET \(columns.assignments) WHERE id = ?")
            .run(arguments: columns.values(WorkoutProfile(preferences)) + [id])
        try connection.statement("DELETE FROM athlete_preferred_zone_configurations WHERE athlete_id = ?").run(id)
        for configuration in preferences.preferredConfigurations.values {
            try connection.statement(
                "INSERT INTO athlete_preferred_zone_configurations (athlete_id, quantity_type, configuration_id) VALUES (?, ?, ?)"
            ).run(id, Int64(configuration.quantityType.rawValue), try configurationID(configuration))
        }
    }
}
