import SensorCore
import Workouts
import Zones

extension WorkoutStore {
    /// The columns a profile is kept in, in `profile` and `workout_profiles` alike.
    static let profileColumns = profileColumnNames.joined(separator: ", ")
    private static let profileColumnNames = [
        "birth_date", "age", "resting_heart_rate", "maximum_heart_rate", "functional_threshold_power", "power_zone_model",
        "lactate_threshold_heart_rate", "heart_rate_zone_model", "sex", "weight",
    ]
    /// `?, ?, ...`: a placeholder for each profile column.
    static let profilePlaceholders = Array(repeating: "?", count: profileColumnNames.count).joined(separator: ", ")
    /// `birth_date = ?, age = ?, ...`: an UPDATE's setting of every profile column.
    static let profileAssignments = profileColumnNames.map { "\($0) = ?" }.joined(separator: ", ")

    /// The values of `profileColumns`, in their order.
    static func profileValues(_ profile: WorkoutProfile) -> [(any StoreValue)?] {
        let athlete = profile.athlete
        return [
            athlete.birthDate?.description, athlete.age, athlete.restingHeartRate, athlete.maximumHeartRate,
            athlete.functionalThresholdPower, profile.powerZoneModel.rawValue, athlete.lactateThresholdHeartRate,
            profile.heartRateZoneModel.rawValue, athlete.sex?.rawValue, athlete.weight,
        ]
    }
    /// `birth_date = excluded.birth_date, ...`: an upsert's update of every profile column.
    static let profileUpdates = profileColumnNames.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")

    /// Stores the profile `workout` was recorded with (`workout_profiles`, migrations 5 and 6); the caller
    /// holds a transaction.
    func insertProfile(_ profile: WorkoutProfile, workout: Int64) throws {
        try connection.statement("INSERT INTO workout_profiles (workout_id, \(Self.profileColumns)) VALUES (?, \(Self.profilePlaceholders))")
            .run(arguments: [workout] + Self.profileValues(profile))
    }

    /// The profile `workout` was recorded with; nil for a workout stored before migration 5.
    func profile(of workout: Int64) throws -> WorkoutProfile? {
        try connection.statement("SELECT \(Self.profileColumns) FROM workout_profiles WHERE workout_id = ?")
            .firstRow(workout) { try profile(from: $0) }
    }

    /// The profile in the row's first columns, `profileColumns`.
    func profile(from row: any StoreRow) throws -> WorkoutProfile {
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
        guard let heartRateModel = HeartRateZoneModel(rawValue: row.text(7)) else {
            throw WorkoutStoreError.invalidData(path: path, reason: "unknown heart-rate zone model \(row.text(7))")
        }
        let sex = try row.optionalText(8).map { text in
            guard let sex = AthleteProfile.Sex(rawValue: text) else {
                throw WorkoutStoreError.invalidData(path: path, reason: "unknown sex \(text) in a profile")
            }
            return sex
        }
        return WorkoutProfile(
            athlete: AthleteProfile(
                birthDate: birthDate, age: row.optionalInt(1), restingHeartRate: row.optionalInt(2),
                maximumHeartRate: row.optionalInt(3), functionalThresholdPower: row.optionalInt(4),
                lactateThresholdHeartRate: row.optionalInt(6), sex: sex, weight: row.optionalInt(9)),
            powerZoneModel: model, heartRateZoneModel: heartRateModel)
    }

    /// Stores the target zones of `workout` (`workout_targets`); the caller holds a transaction.
    func insertTargets(_ targets: [WorkoutTarget], workout: Int64) throws {
        guard !targets.isEmpty else { return }
        let statement = try connection.statement(
            "INSERT INTO workout_targets (workout_id, quantity_type, lowest_zone, highest_zone) VALUES (?, ?, ?, ?)")
        for target in targets {
            try statement.run(
                workout, Int64(target.quantityType.rawValue), Int64(target.zones.lowerBound), Int64(target.zones.upperBound))
        }
    }

    /// The target zones of `workout`, heart rate first.
    func targets(of workout: Int64) throws -> [WorkoutTarget] {
        var targets: [WorkoutTarget] = []
        try connection.statement(
            "SELECT quantity_type, lowest_zone, highest_zone FROM workout_targets WHERE workout_id = ? ORDER BY quantity_type"
        ).forEachRow(workout) { row in
            guard let type = QuantityType(rawValue: UInt8(clamping: row.int64(0))) else {
                throw WorkoutStoreError.invalidData(path: path, reason: "unknown quantity type \(row.int64(0)) of a target")
            }
            targets.append(WorkoutTarget(quantityType: type, zones: Int(row.int64(1))...Int(row.int64(2))))
        }
        return targets
    }
}
