import Outputs
import SensorCore
import Workouts
import WorkoutStore
import Zones

/// `sensorbridge athletes`: the people who record on this box, each with a profile, preferred
/// zones and sensors of their own, used by the commands given `--athlete NAME`.
enum AthletesCommand {
    static let subcommands = ["add", "list", "assign", "remove"]

    static let help = """
        Usage: sensorbridge athletes add NAME [--age N | --birth-date YYYY-MM-DD] [--resting-hr N]
                                     [--max-hr N] [--lthr N] [--hr-model reserve|max|lthr] [--ftp N]
                                     [--power-model 6|7] [--sex female|male] [--weight KG]
                                     [--hr-zones A,B,...] [--power-zones A,B,...]
               sensorbridge athletes list [--json]
               sensorbridge athletes assign NAME [--hr ADDRESS] [--power ADDRESS]
               sensorbridge athletes remove NAME [--yes]
               (each also with --store PATH)

        Several people recording on one box (a family's trainer, a gym's bikes): each athlete has a
        profile and preferred zones of their own, and their own heart-rate strap and power meter.
        'replay', 'record' and 'serve' given --athlete NAME zone the workout with that athlete's
        zones and keep the name with it ('workouts list --athlete NAME' lists them); 'record
        --athlete NAME' records the athlete's assigned sensors when no --hr or --power is given.
        'profile set|show|reset' and 'zones set|show|reset' with --athlete NAME change or show
        that athlete's. Without --athlete, every command uses the box's own profile, as before.

        'add' takes the profile values and preferred zones as 'profile set' and 'zones set' do.
        'assign' gives a sensor (its Bluetooth address, from 'sensorbridge scan') to an athlete in
        a role; a sensor belongs to one athlete, so one that was another's moves. 'remove' deletes
        the athlete with their profile, zones and assignments, asking first on a terminal; their
        workouts stay and keep the name.

        Names are 1 to 64 characters without control characters or spaces at either end, and
        match in any case ('anna' is the athlete added as 'Anna').

        Options:
          --hr ADDRESS, --power ADDRESS
                                     with assign: the heart-rate strap, the power meter
          --json                     with list: {"athletes":[{"name":"Anna","profile":{...},
                                     "preferredZones":{...},"sensors":{"heartRate":"...","power":"..."}}]}
          -y, --yes                  with remove: do not ask
        \(StoreLocation.help)

        Examples:
          sensorbridge athletes add Anna --age 35 --resting-hr 52 --ftp 230
          sensorbridge athletes assign Anna --hr C4:7E:11:22:33:44 --power E8:FE:6E:91:9F:16
          sensorbridge record --athlete Anna
          sensorbridge workouts list --athlete Anna
        """

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let subcommand = words.first ?? ""
        if subcommand == "--help" || subcommand == "-h" {
            context.output.line(help)
            return .success
        }
        guard subcommands.contains(subcommand) else {
            throw UsageError("give a subcommand: add, list, assign or remove; run 'sensorbridge athletes --help'")
        }
        let options: Set<String> =
            switch subcommand {
            case "add": ProfileValues.options.union(["hr-zones", "power-zones"])
            case "assign": ["hr", "power"]
            default: []
            }
        let arguments = try CommandArguments(
            words.dropFirst(), command: "athletes \(subcommand)", options: options.union([StoreLocation.option]),
            flags: subcommand == "list" ? ["json"] : subcommand == "remove" ? ["yes"] : [],
            shortFlags: subcommand == "remove" ? ["-y": "yes"] : [:])
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        if subcommand == "list" {
            try arguments.expectPositionals(atMost: 0)
            return try list(arguments, context)
        }
        try arguments.expectPositionals(atMost: 1)
        guard let text = arguments.positionals.first else { throw UsageError("give the athlete's name: sensorbridge athletes \(subcommand) NAME") }
        let name: AthleteName
        switch AthleteName.parse(text, label: "athletes \(subcommand)") {
        case .success(let parsed): name = parsed
        case .failure(let error): throw UsageError(error.description)
        }
        switch subcommand {
        case "add": return try add(name, arguments, context)
        case "assign": return try assign(name, arguments, context)
        default: return try remove(name, arguments, context)
        }
    }

    static func add(_ name: AthleteName, _ arguments: CommandArguments, _ context: CommandContext) throws -> ExitStatus {
        var preferences = ZonePreferences()
        try ProfileValues.apply(arguments.requestValues, to: &preferences)
        try ProfileValues.checkModels(preferences, arguments.requestValues, on: ProfileValues.today())
        for (flag, type) in [("hr-zones", QuantityType.heartRate), ("power-zones", .cyclingPower)] {
            guard let text = arguments[flag] else { continue }
            do {
                try preferences.setUserConfiguration(try WorkoutSetup.zoneConfiguration(text, type, label: "--\(flag)"))
            } catch let error as UsageError {
                throw error
            } catch {
                throw UsageError("--\(flag) \(text): \(error)")
            }
        }
        let store = try StoreLocation.open(arguments, context)
        try store.addAthlete(name, preferences: preferences)
        let what = ProfileCommand.described(preferences)
        context.output.line("Added athlete \(name)" + (what.isEmpty ? "." : ": \(what.joined(separator: ", ")).")
            + (preferences.profile == AthleteProfile() ? " Set a profile with 'sensorbridge profile set --athlete \(name) ...'." : ""))
        return .success
    }

    static func assign(_ name: AthleteName, _ arguments: CommandArguments, _ context: CommandContext) throws -> ExitStatus {
        var assignments: [(SensorRole, String)] = []
        for (flag, role) in [("hr", SensorRole.heartRate), ("power", .power)] {
            guard let text = arguments[flag] else { continue }
            guard let address = BluetoothAddress(text) else {
                throw UsageError("--\(flag) \(text) is not a Bluetooth address; give one such as C4:7E:11:22:33:44 (see 'sensorbridge scan')")
            }
            assignments.append((role, address.description))
        }
        guard !assignments.isEmpty else {
            throw UsageError("give the sensors: sensorbridge athletes assign \(name) --hr ADDRESS --power ADDRESS")
        }
        if assignments.count == 2, assignments[0].1 == assignments[1].1 {
            throw UsageError("--hr and --power give the same sensor; a sensor is assigned in one role")
        }
        let store = try StoreLocation.open(arguments, context)
        for (role, address) in assignments { try store.assignSensor(address, role: role, to: name) }
        let stored = try store.athlete(named: name)?.name ?? name
        context.output.line(
            "Assigned to \(stored): " + assignments.map { "\(roleText($0.0)) \($0.1)" }.joined(separator: ", ") + ".")
        return .success
    }

    static func remove(_ name: AthleteName, _ arguments: CommandArguments, _ context: CommandContext) throws -> ExitStatus {
        let store = try StoreLocation.open(arguments, context, noteUnfinished: false)
        guard let stored = try store.athlete(named: name)?.name else { throw WorkoutStoreError.noAthlete(name.rawValue) }
        if !arguments.has("yes"), context.inputIsTerminal {
            guard context.confirm("Remove athlete \(stored) with their profile, zones and sensors? Their workouts stay. [y/N] ") else {
                context.errors.line("sensorbridge athletes remove: \(stored) is kept; nothing was changed")
                return .failure
            }
        }
        try store.removeAthlete(stored)
        context.output.line("Removed athlete \(stored); their workouts stay.")
        return .success
    }

    static func list(_ arguments: CommandArguments, _ context: CommandContext) throws -> ExitStatus {
        let store = try StoreLocation.openForReading(arguments, context)
        let athletes = try store.athletes()
        if arguments.has("json") {
            context.output.line(JSONValue.object(["athletes": .array(athletes.map(json))]).serialized)
            return .success
        }
        guard !athletes.isEmpty else {
            context.output.line("No athletes in \(store.path); 'sensorbridge athletes add NAME' adds one.")
            return .success
        }
        for athlete in athletes {
            let profile = ProfileCommand.described(athlete.preferences)
            var line = "\(athlete.name): " + (profile.isEmpty ? "no profile" : profile.joined(separator: ", "))
            let preferred = [QuantityType.heartRate, .cyclingPower].compactMap { type in
                athlete.preferences.preferredConfigurations[type].map { configuration in
                    "\(ZoneTotalsReport.name(type)) zones " + configuration.boundaryValues.map(WorkoutSummary.whole).joined(separator: ",")
                }
            }
            if !preferred.isEmpty { line += "; preferred " + preferred.joined(separator: ", ") }
            let sensors = SensorRole.allCases.compactMap { role in athlete.sensors[role].map { "\(roleText(role)) \($0)" } }
            line += "; " + (sensors.isEmpty ? "no sensors assigned" : sensors.joined(separator: ", "))
            context.output.line(line)
        }
        return .success
    }

    static func json(_ athlete: AthleteRecord) -> JSONValue {
        var sensors = JSONObject()
        for role in SensorRole.allCases {
            sensors.append(role == .heartRate ? "heartRate" : "power", athlete.sensors[role].map(JSONValue.string) ?? .null)
        }
        var object = JSONObject()
        object.append("name", .string(athlete.name.rawValue))
        object.append("profile", ProfileJSON.profile(athlete.preferences))
        var preferred = JSONObject()
        for type in WorkoutStateMachine.zonedTypes {
            preferred.append(type.identifier, athlete.preferences.preferredConfigurations[type]?.jsonValue ?? .null)
        }
        object.append("preferredZones", .object(preferred))
        object.append("sensors", .object(sensors))
        return .object(object)
    }

    static func roleText(_ role: SensorRole) -> String { role == .heartRate ? "heart rate" : "power" }
}
