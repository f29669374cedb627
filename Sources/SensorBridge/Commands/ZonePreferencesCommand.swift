import Outputs
import SensorCore
import Workouts
import WorkoutStore
import Zones

/// `sensorbridge zones set|show|reset`: the person's preferred zones in the workout store (source
/// user), which later recordings use. `run(_:_:)` dispatches these three; the `zones` command
/// sends them here.
enum ZonePreferencesCommand {
    /// The `zones` subcommands handled here.
    static let subcommands = ["set", "show", "reset"]

    static let help = """
        Usage: sensorbridge zones set heart-rate|power A,B,C,... [--athlete NAME] [--store PATH]
               sensorbridge zones show [--json] [--athlete NAME] [--store PATH]
               sensorbridge zones reset [heart-rate|power] [--athlete NAME] [--store PATH]

        Your zones. 'set' makes boundaries your preferred zones (source user) for every later
        recording and 'workouts zones' report; 'show' prints the zones in effect for heart rate and
        power (preferred, else the system zones your profile gives, see 'sensorbridge profile');
        'reset' goes back to the system zones (both quantities when none is named).

        Boundaries are bpm for heart rate and W for power: 2 to 8 increasing numbers make 3 to 9
        zones; zone 1 is below the first boundary and the last zone from the last one up. Only
        zones a person could have are taken: heart-rate boundaries from 30 to 250 bpm, power
        boundaries above 0 and at most 3000 W, each at least 1 above the one before.

        Options:
          --json                     the zones in effect afterwards (set, reset) or now (show):
                                     {"heartRate":{"source":"user","unit":"count/min",
                                     "zones":[...]},"cyclingPower":null}
        \(StoreLocation.help)

        Examples:
          sensorbridge zones set heart-rate 120,140,155,170
          sensorbridge zones set power 150,200,240,280,330
          sensorbridge zones show
          sensorbridge zones reset heart-rate
        """

    /// `zones WORDS`: set, show or reset.
    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        guard let subcommand = words.first, subcommands.contains(subcommand) else {
            if words.first == "--help" || words.first == "-h" {
                context.output.line(help)
                return .success
            }
            throw UsageError("give a subcommand: set, show or reset; run 'sensorbridge zones --help'")
        }
        return try run(subcommand, Array(words.dropFirst()), context)
    }

    /// One of `subcommands` with the words after it.
    static func run(_ subcommand: String, _ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(
            words, command: "zones \(subcommand)", options: [StoreLocation.option, AthleteOption.option], flags: ["json"])
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        let athlete = try AthleteOption.name(arguments)
        func quantity(_ text: String) throws(UsageError) -> QuantityType {
            guard let type = QuantityType(identifier: text), WorkoutStateMachine.zonedTypes.contains(type) else {
                throw UsageError("'\(text)' has no zones; give heart-rate or power")
            }
            return type
        }
        switch subcommand {
        case "set":
            try arguments.expectPositionals(atMost: 2)
            guard arguments.positionals.count == 2 else {
                throw UsageError(
                    "give the quantity and the boundaries, for example: sensorbridge zones set heart-rate 120,140,155,170")
            }
            let type = try quantity(arguments.positionals[0])
            let configuration = try WorkoutSetup.zoneConfiguration(
                arguments.positionals[1], type, label: "zones set \(arguments.positionals[0])")
            let store = try StoreLocation.open(arguments, context)
            var preferences = try store.preferences(of: athlete)
            do {
                try preferences.setUserConfiguration(configuration)
            } catch {
                throw UsageError("zones set \(arguments.positionals[0]) \(arguments.positionals[1]): \(error)")
            }
            try store.savePreferences(preferences, for: athlete)
            write(preferences, arguments, context, only: type)
        case "show":
            try arguments.expectPositionals(atMost: 0)
            let preferences = try StoreLocation.openForReading(arguments, context).preferences(of: athlete)
            write(preferences, arguments, context)
        default:  // reset
            try arguments.expectPositionals(atMost: 1)
            let types = try arguments.positionals.first.map { text throws(UsageError) in [try quantity(text)] }
                ?? WorkoutStateMachine.zonedTypes
            let store = try StoreLocation.open(arguments, context)
            var preferences = try store.preferences(of: athlete)
            for type in types { preferences.removePreferredConfiguration(for: type) }
            try store.savePreferences(preferences, for: athlete)
            write(preferences, arguments, context)
        }
        return .success
    }

    /// The zones in effect: with --json, both quantities as 'zones show --json' prints them (for
    /// set and reset too); else the text, of `only` when given.
    static func write(
        _ preferences: ZonePreferences, _ arguments: CommandArguments, _ context: CommandContext, only: QuantityType? = nil
    ) {
        guard arguments.has("json") else {
            context.output.write(text(preferences, context, only: only))
            return
        }
        context.output.line(ProfileJSON.zones(preferences, on: WorkoutZonesReport.today(context)).serialized)
    }

    /// The zones in effect, one block per quantity.
    static func text(_ preferences: ZonePreferences, _ context: CommandContext, only: QuantityType? = nil) -> String {
        var lines: [String] = []
        for type in WorkoutStateMachine.zonedTypes where only == nil || only == type {
            if !lines.isEmpty { lines.append("") }
            if let configuration = preferences.zoneConfiguration(for: type, on: WorkoutZonesReport.today(context)) {
                lines.append(contentsOf: WorkoutSummary.bars(WorkoutZoneGroup(configuration: configuration), durations: false))
            } else {
                lines.append(
                    type == .heartRate && preferences.heartRateZoneModel == .lactateThreshold
                        ? "Heart rate zones: none; the %LTHR model needs your lactate-threshold heart rate: "
                            + "sensorbridge profile set --lthr 165"
                        : type == .heartRate
                        ? "Heart rate zones: none; 'sensorbridge zones set heart-rate 120,140,155,170', or a profile "
                            + "with 'sensorbridge profile set --age 40 --resting-hr 50'"
                        : "Power zones: none; 'sensorbridge zones set power 150,200,250,300', or a profile with "
                            + "'sensorbridge profile set --ftp 250'")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
