import WorkoutStore

/// `--athlete NAME`: the commands that use a profile take it to use that athlete's profile, zones
/// and sensors (`sensorbridge athletes`) instead of the box's own.
enum AthleteOption {
    static let option = "athlete"
    static let help = """
          --athlete NAME             an athlete's profile, zones and sensors instead of your own
                                     (see 'sensorbridge athletes')
        """

    /// The name given with `--athlete`, nil without it.
    static func name(_ arguments: CommandArguments) throws(UsageError) -> AthleteName? {
        guard let text = arguments[option] else { return nil }
        switch AthleteName.parse(text, label: "--athlete") {
        case .success(let name): return name
        case .failure(let error): throw UsageError(error.description)
        }
    }

    /// The stored athlete `--athlete` names (in any case), nil without it.
    ///
    /// - Throws: `WorkoutStoreError.noAthlete` when `store` (or a missing store) has no such athlete.
    static func athlete(_ arguments: CommandArguments, in store: WorkoutStore?) throws -> AthleteRecord? {
        try name(arguments).map { try athlete(named: $0, in: store) }
    }

    /// The stored athlete called `name` (in any case).
    ///
    /// - Throws: `WorkoutStoreError.noAthlete` when `store` (or a missing store) has no such athlete.
    static func athlete(named name: AthleteName, in store: WorkoutStore?) throws -> AthleteRecord {
        // The store's own comparison (ASCII case).
        guard let found = try store?.athlete(named: name) else { throw WorkoutStoreError.noAthlete(name.rawValue) }
        return found
    }
}

extension AthleteRecord {
    /// The athlete's assigned sensors under the keys `record` and `serve` give those roles
    /// (`hr`, `power`), heart rate first.
    var assignedSensors: [(role: SensorRole, key: String, address: String)] {
        [(SensorRole.heartRate, "hr"), (.power, "power")].compactMap { role, key in sensors[role].map { (role, key, $0) } }
    }
}
