import SensorCore
import Workouts
import Zones

extension WorkoutStore {
    /// The columns a profile is kept in, in `profile`, `athletes` and `workout_profiles` alike, as
    /// this store's schema has them (sex and weight from migration 17), with their values'
    /// placeholders and an UPDATE's and an upsert's settings.
    struct ProfileColumns {
        let names: [String]
        var list: String { names.joined(separator: ", ") }
        var placeholders: String { Array(repeating: "?", count: names.count).joined(separator: ", ") }
        var assignments: String { names.map { "\($0) = ?" }.joined(separator: ", ") }
        var updates: String { names.map { "\($0) = excluded.\($0)" }.joined(separator: ", ") }

        /// `profile`'s values for these columns, in their order.
        func values(_ profile: WorkoutProfile) -> [(any StoreValue)?] {
            let athlete = profile.athlete
            let all: [(any StoreValue)?] = [
                athlete.birthDate?.description, athlete.age, athlete.restingHeartRate, athlete.maximumHeartRate,
                athlete.functionalThresholdPower, profile.powerZoneModel.rawValue, athlete.lactateThresholdHeartRate,
                profile.heartRateZoneModel.rawValue, athlete.sex?.rawValue, athlete.weight,
            ]
            return Array(all.prefix(names.count))
        }
    }

    private static let allProfileColumns = [
        "birth_date", "age", "resting_heart_rate", "maximum_heart_rate", "functional_threshold_power", "power_zone_model",
        "lactate_threshold_heart_rate", "heart_rate_zone_model", "sex", "weight",
    ]

    /// The profile columns of this store's schema.
    func profileColumns() throws -> ProfileColumns {
        ProfileColumns(
            names: try connection.userVersion >= Schema.sexAndWeightVersion ? Self.allProfileColumns : Array(Self.allProfileColumns.prefix(8)))
    }

    /// Stores the profile `workout` was recorded with (`workout_profiles`, migrations 5 and 6); the caller
    /// holds a transaction.
    func insertProfile(_ profile: WorkoutProfile, workout: Int64) throws {
        let columns = try profileColumns()
        try connection.statement("INSERT INTO workout_profiles (workout_id, \(columns.list)) VALUES (?, \(columns.placeholders))")
            .run(arguments: [workout] + columns.values(profile))
    }

    /// The profile `workout` was recorded with; nil for a workout stored before migration 5.
    func profile(of workout: Int64) throws -> WorkoutProfile? {
        let columns = try profileColumns()
        return try connection.statement("SELECT \(columns.list) FROM workout_profiles WHERE workout_id = ?")
            .firstRow(workout) { try profile(from: $0, columns) }
    }

    /// The profile in the row's first columns, `profileColumns`.
    func profile(from row: any StoreRow, _ columns: ProfileColumns) throws -> WorkoutProfile {
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
        let hasSexAndWeight = columns.names.count > 8
        let sex = try (hasSexAndWeight ? row.optionalText(8) : nil).map { text in
            guard let sex = AthleteProfile.Sex(rawValue: text) else {
                throw WorkoutStoreError.invalidData(path: path, reason: "unknown sex \(text) in a profile")
            }
            return sex
        }
        return WorkoutProfile(
            athlete: AthleteProfile(
                birthDate: birthDate, age: row.optionalInt(1), restingHeartRate: row.optionalInt(2),
                maximumHeartRate: row.optionalInt(3), functionalThresholdPower: row.optionalInt(4),
                lactateThresholdHeartRate: row.optionalInt(6), sex: sex, weight: hasSexAndWeight ? row.optionalInt(9) : nil),
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
