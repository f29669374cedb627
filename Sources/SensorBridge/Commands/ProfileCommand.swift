import Foundation
import Outputs
import SensorCore
import WorkoutStore
import Zones

/// `sensorbridge profile`: the person's profile in the workout store, for the system zones.
enum ProfileCommand {
    static let help = """
        Usage: sensorbridge profile set [--age N | --birth-date YYYY-MM-DD] [--resting-hr N] [--max-hr N]
                                        [--lthr N] [--hr-model reserve|max|lthr] [--ftp N]
                                        [--power-model 6|7] [--sex female|male] [--weight KG]
                                        [--json] [--store PATH]
               sensorbridge profile show [--json] [--store PATH]
               sensorbridge profile reset [--yes] [--json] [--store PATH]
               sensorbridge profile suggest [--apply] [--from DAY] [--json] [--store PATH]
               (each also with --athlete NAME: that athlete's profile, see 'sensorbridge athletes')

        Your profile, from which the system zones come: heart-rate zones by heart-rate reserve
        (the default; needs an age or birth date, or a measured maximum, and a resting heart rate),
        by percent of the maximum (--hr-model max) or by Friel's percent of the lactate-threshold
        heart rate (--hr-model lthr; needs --lthr), power zones by percent of FTP. Recordings and 'workouts zones' use it unless your preferred zones
        ('sensorbridge zones set') or a command's flags say otherwise. An age from a birth date is
        taken on the day the command runs.

        'set' changes the values given and keeps the others; 'reset' forgets the whole profile,
        asking first on a terminal (not from a script or a pipe).

        'suggest' reads your best efforts ('sensorbridge workouts best') of the last six weeks and
        proposes what a coach would: an FTP of 95 % of your best 20 min power (without a 20 min
        effort, the critical power fitted to your best 3 to 15 min), your highest 5 s heart rate
        as maximum when it is above the profile's, and your lowest 5 min heart rate as resting
        when it is below the one set (never when none is: a ride's lowest is no resting heart rate). It only ever raises FTP and maximum and lowers resting: an effort shows
        what you can do, not what you cannot. It prints each change and why; --apply takes them.

        Options:
          --age N | --birth-date YYYY-MM-DD
          --resting-hr N             resting heart rate, bpm
          --max-hr N                 measured maximum heart rate, bpm (else 208 - 0.7 x age)
          --lthr N                   lactate-threshold heart rate, bpm
          --hr-model reserve|max|lthr  heart-rate zones by reserve (default), % of maximum or % of LTHR
          --ftp N                    functional threshold power, W
          --power-model 6|7          six power zones (default) or Coggan's seven
          --sex female|male          for calories from heart rate (the class screen)
          --weight KG                body weight in whole kg (20 to 300), for calories from heart
                                     rate and W/kg
          --json                     the profile afterwards (set, reset) or now (show):
                                     {"birthDate":null,"age":40,...}
          -y, --yes                  with reset: do not ask
          --apply                    with suggest: take the suggested values into the profile
          --from YYYY-MM-DD          with suggest: workouts from this day on (default: six weeks ago)
        \(StoreLocation.help)

        Examples:
          sensorbridge profile set --age 40 --resting-hr 50 --max-hr 185 --ftp 250
          sensorbridge profile set --lthr 165 --hr-model lthr
          sensorbridge profile show --json
          sensorbridge profile suggest --apply
        """

    static let subcommands = ["set", "show", "reset", "suggest"]

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let subcommand = words.first ?? ""
        // Each subcommand takes what it uses: the profile's values only 'set', --yes only 'reset'.
        let arguments = try CommandArguments(
            words.dropFirst(), command: "profile \(subcommand)",
            options: (subcommand == "set" ? ProfileValues.options : subcommand == "suggest" ? ["from"] : [])
                .union([StoreLocation.option, AthleteOption.option]),
            flags: subcommand == "reset" ? ["json", "yes"] : subcommand == "suggest" ? ["json", "apply"] : ["json"], shortFlags: subcommand == "reset" ? ["-y": "yes"] : [:])
        if arguments.has("help") || subcommand == "--help" || subcommand == "-h" {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 0)
        let athlete = try AthleteOption.name(arguments)
        switch subcommand {
        case "set":
            guard arguments.values.keys.contains(where: { $0 != StoreLocation.option && $0 != AthleteOption.option }) else {
                throw UsageError("give what to set, for example: sensorbridge profile set --age 40 --resting-hr 50 --ftp 250")
            }
            let store = try StoreLocation.open(arguments, context)
            var preferences = try store.preferences(of: athlete)
            try ProfileValues.apply(arguments.requestValues, to: &preferences)
            try ProfileValues.checkModels(preferences, arguments.requestValues, on: ProfileValues.today())
            try store.savePreferences(preferences, for: athlete)
            context.output.write(arguments.has("json") ? ProfileJSON.profile(preferences).serialized + "\n" : text(preferences, context))
        case "show":
            let store = try StoreLocation.openForReading(arguments, context)
            let preferences = try store.preferences(of: athlete)
            context.output.write(arguments.has("json") ? ProfileJSON.profile(preferences).serialized + "\n" : text(preferences, context))
        case "reset":
            let store = try StoreLocation.open(arguments, context)
            var preferences = try store.preferences(of: athlete)
            let what = described(preferences)
            if !arguments.has("yes"), context.inputIsTerminal, !what.isEmpty {
                guard context.confirm("Reset your profile (\(what.joined(separator: ", ")))? [y/N] ") else {
                    context.errors.line("sensorbridge profile reset: your profile is kept; nothing was changed")
                    return .failure
                }
            }
            preferences.profile = AthleteProfile()
            preferences.powerZoneModel = .sixZones
            preferences.heartRateZoneModel = .reserve
            try store.savePreferences(preferences, for: athlete)
            if arguments.has("json") {
                context.output.line(ProfileJSON.profile(preferences).serialized)
            } else {
                context.output.line("Profile reset; system zones need a new profile ('sensorbridge profile set').")
            }
        case "suggest":
            return try suggest(arguments, athlete: athlete, context)
        default:
            throw UsageError("give a subcommand: set, show, reset or suggest; run 'sensorbridge profile --help'")
        }
        return .success
    }

    /// Days of workouts `suggest` reads unless --from says otherwise: six weeks, today included.
    static let suggestionDays = 42

    static func suggest(_ arguments: CommandArguments, athlete: AthleteName?, _ context: CommandContext) throws -> ExitStatus {
        guard let today = WorkoutZonesReport.today(context) else { throw UsageError("today is outside years 1 to 9999") }
        guard let from = try arguments.requestValues.day("from") ?? today.adding(days: 1 - suggestionDays) else {
            throw UsageError("--from needs a day in years 1 to 9999")
        }
        let filter = WorkoutFilter(
            from: context.calendar.date(from: DateComponents(year: from.year, month: from.month, day: from.day)), athlete: athlete)
        let apply = arguments.has("apply")
        let store = try apply ? StoreLocation.open(arguments, context) : StoreLocation.openForReading(arguments, context)
        var preferences = try store.preferences(of: athlete)
        let suggestion = ProfileSuggestion(
            // The box's own profile is read from its own workouts, not its athletes'.
            try store.bestEfforts(matching: filter).filter { $0.athlete == athlete }, profile: preferences.profile, today: today, calendar: context.calendar)
        if apply, !suggestion.changes.isEmpty {
            preferences.profile = suggestion.applied(to: preferences.profile)
            try store.savePreferences(preferences, for: athlete)
        }
        context.output.write(
            arguments.has("json")
                ? suggestion.json(applied: apply && !suggestion.changes.isEmpty).serialized + "\n"
                : suggestion.text(applied: apply, window: "since \(from)"))
        return .success
    }

    /// What a reset forgets, for its question: `age 40`, `FTP 250 W`, ...; empty when nothing.
    static func described(_ preferences: ZonePreferences) -> [String] {
        let p = preferences.profile
        var what: [String] = []
        if let born = p.birthDate { what.append("born \(born)") } else if let age = p.age { what.append("age \(age)") }
        if let resting = p.restingHeartRate { what.append("resting HR \(resting) bpm") }
        if let maximum = p.maximumHeartRate { what.append("maximum HR \(maximum) bpm") }
        if let ftp = p.functionalThresholdPower { what.append("FTP \(ftp) W") }
        if let sex = p.sex { what.append(sex.rawValue) }
        if let weight = p.weight { what.append("\(weight) kg") }
        if preferences.powerZoneModel != .sixZones { what.append("7 power zones") }
        return what
    }
    static func text(_ preferences: ZonePreferences, _ context: CommandContext) -> String {
        let p = preferences.profile
        func value(_ number: Int?, _ unit: String) -> String { number.map { "\($0)\(unit)" } ?? "not set" }
        let maximum: String
        if let measured = p.maximumHeartRate {
            maximum = "\(measured) bpm (measured)"
        } else if let estimated = try? p.maximumHeartRate(on: WorkoutZonesReport.today(context)) {
            maximum = "\(estimated.formatted) bpm (208 - 0.7 x age)"
        } else {
            maximum = "not set"
        }
        var lines = [
            "Profile",
            "  Age             " + (p.birthDate.map { "born \($0)" } ?? value(p.age, "")),
            "  Resting HR      " + value(p.restingHeartRate, " bpm"),
            "  Maximum HR      " + maximum,
            "  Threshold HR    " + value(p.lactateThresholdHeartRate, " bpm (LTHR)"),
            "  FTP             " + value(p.functionalThresholdPower, " W"),
        ]
        if p.sex != nil || p.weight != nil {
            lines.append("  Sex, weight     " + [p.sex?.rawValue, p.weight.map { "\($0) kg" }].compactMap { $0 }.joined(separator: ", "))
        }
        lines += [
            "  HR zones        " + heartRateModelText(preferences.heartRateZoneModel),
            "  Power zones     " + (preferences.powerZoneModel == .sixZones ? "6 zones" : "7 zones (Coggan)"),
        ]
        for type in [QuantityType.heartRate, .cyclingPower] {
            if preferences.preferredConfigurations[type] != nil {
                lines.append("Your preferred \(ZoneTotalsReport.name(type)) zones apply; 'sensorbridge zones show' lists them.")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `heart-rate reserve (Karvonen), 5 zones`, ...
    static func heartRateModelText(_ model: HeartRateZoneModel) -> String {
        switch model {
        case .reserve: "reserve: % of heart-rate reserve (Karvonen), 5 zones"
        case .maximum: "max: % of maximum heart rate, 5 zones"
        case .lactateThreshold: "lthr: % of lactate-threshold heart rate (Friel), 7 zones"
        }
    }
}
