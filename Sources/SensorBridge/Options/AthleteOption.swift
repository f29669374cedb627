import Outputs
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

    /// `--all-athletes`: `workouts list` and `workouts load` over every rider's workouts, said
    /// outright (`load` asks for it, or for `--athlete`, when the workouts are of several riders).
    static let allAthletes = "all-athletes"

    /// The athlete whose workouts `--athlete` selects; nil for every rider's (`--all-athletes`, or
    /// neither option).
    static func workoutsName(_ arguments: CommandArguments) throws(UsageError) -> AthleteName? {
        if arguments.has(allAthletes), arguments[option] != nil {
            throw UsageError("--athlete NAME selects one rider's workouts and --all-athletes every rider's; give one of them")
        }
        return try name(arguments)
    }

    /// `Anna, Ben and your own profile`: the riders of `athletes` (nil for workouts recorded with
    /// the box's own profile), each once, by name.
    static func riders(_ athletes: [AthleteName?]) -> String {
        var names: [AthleteName] = []
        for case let name? in athletes where !names.contains(name) { names.append(name) }
        var riders = names.sorted().map(\.rawValue)
        if athletes.contains(where: { $0 == nil }) { riders.append("your own profile") }
        guard let last = riders.popLast() else { return "" }
        return riders.isEmpty ? last : riders.joined(separator: ", ") + " and " + last
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
