import Foundation
import Outputs
import SensorCore
import Workouts
import WorkoutStore
import Zones

/// `sensorbridge zones`: `defaults`, the system zone configurations a profile gives (DESIGN.md §3
/// "Zones", default models; issue 4), and `set`, `show`, `reset` of the stored preferred zones
/// (`ZonePreferencesCommand`).
enum ZonesCommand {
    static let subcommand = SensorBridgeCLI.Subcommand(
        name: "zones", summary: "zones: defaults for a profile; set, show, reset your own",
        subcommands: ["defaults"] + ZonePreferencesCommand.subcommands, run: run)

    static let overview = """
        Usage: sensorbridge zones defaults|set|show|reset [options]

        Commands:
          defaults  the default (system) zones from age, resting, maximum or threshold heart rate and FTP,
                    or from a ramp's DFA a1 thresholds (--hr-model dfa --workout ID)
          set       make boundaries your preferred zones: zones set heart-rate 120,140,155,170
          show      the zones in effect (preferred, else system from your stored profile)
          reset     back to the system zones

        Examples:
          sensorbridge zones defaults --age 40 --resting-hr 50 --ftp 250
          sensorbridge zones set heart-rate 120,140,155,170
          sensorbridge zones show

        Run 'sensorbridge zones <command> --help' for the options.
        """

    static let defaultsHelp = """
        Usage: sensorbridge zones defaults [--age YEARS | --birth-date YYYY-MM-DD] [--resting-hr BPM]
                                           [--max-hr BPM] [--lthr BPM] [--hr-model reserve|max|lthr]
                                           [--ftp WATTS] [--power-model 6|7] [--json]
               sensorbridge zones defaults --hr-model dfa --workout ID|latest [--store PATH|URL]
                                           [--ftp WATTS] [--power-model 6|7] [--json]

        Prints the zones SensorBridge uses when you have set none of your own:
          heart rate     by --hr-model:
                         reserve (the default): 5 zones by heart-rate reserve (Karvonen): resting +
                           60, 70, 80 and 90 % of (maximum - resting). Needs --resting-hr and one of
                           --age, --birth-date or --max-hr.
                         max: 5 zones at 60, 70, 80 and 90 % of the maximum. Needs one of --age,
                           --birth-date or --max-hr.
                         lthr: Joe Friel's 7 cycling zones (1, 2, 3, 4, 5a, 5b, 5c) from 81, 90, 94,
                           100, 103 and 106 % of the lactate-threshold heart rate. Needs --lthr.
                         dfa: 5 zones from a ramp's heart-rate variability thresholds, where
                           DFA a1 of its RR intervals fell through 0.75 (HRVT1, near the first
                           ventilatory threshold) and 0.5 (HRVT2, near the second): zone 1 below
                           81 % of HRVT2, zone 2 up to HRVT1, zone 3 up to their midpoint, zone 4
                           up to HRVT2, zone 5 above. Needs --workout: a ramp ridden with a chest
                           strap sending RR intervals.
                         The maximum is --max-hr, else 208 - 0.7 x age (Tanaka).
          cycling power  6 zones at 55, 75, 90, 105 and 120 % of FTP, or Coggan's 7 adding 150 %
                         (--power-model 7). Needs --ftp.
        Boundaries are rounded to whole bpm or W, halves up. A value on a boundary belongs to the
        zone above it. The table numbers zones from 1; JSON "index" counts from 0, as HealthKit does.

        Options:
          --age YEARS             age in whole years (1 to 120)
          --birth-date DATE       birth date as YYYY-MM-DD; the age is taken on today's date
          --resting-hr BPM        resting heart rate in beats per minute (20 to 250)
          --max-hr BPM            measured maximum heart rate (20 to 250), instead of the estimate
          --lthr BPM              lactate-threshold heart rate (20 to 250), for --hr-model lthr
          --hr-model MODEL        reserve (the default), max, lthr or dfa
          --workout ID|latest     the stored ramp whose DFA a1 gives --hr-model dfa its thresholds
          --ftp WATTS             functional threshold power (20 to 2500)
          --power-model 6|7       6 zones (the default) or Coggan's 7
          --json                  print {"heartRate": {...}, "cyclingPower": {...}} instead of tables
                                  (with --hr-model dfa also "dfaThresholds": {"workout", "hrvt1", "hrvt2"})
        \(StoreLocation.help)

        Examples:
          sensorbridge zones defaults --age 40 --resting-hr 50
          sensorbridge zones defaults --birth-date 1985-04-23 --resting-hr 48 --max-hr 186 --ftp 250 --json
          sensorbridge zones defaults --max-hr 180 --hr-model max
          sensorbridge zones defaults --lthr 165 --hr-model lthr
          sensorbridge zones defaults --ftp 250 --power-model 7
          sensorbridge zones defaults --hr-model dfa --workout 12
        """

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        switch words.first {
        case "defaults":
            return try runDefaults(Array(words.dropFirst()), context)
        case "--help", "-h", "help":
            context.output.line(overview)
            return .success
        case nil:
            throw UsageError(
                "say what to show, as in 'sensorbridge zones defaults --age 40 --resting-hr 50'; "
                    + "run 'sensorbridge zones --help'")
        case let word? where ZonePreferencesCommand.subcommands.contains(word):
            return try ZonePreferencesCommand.run(word, Array(words.dropFirst()), context)
        case let word?:
            throw UsageError(
                "unknown zones command '\(word)'\(Suggestion.phrase(for: word, among: subcommand.subcommands)); "
                    + "the commands are defaults, set, show and reset (run 'sensorbridge zones --help')")
        }
    }

    static func runDefaults(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(
            words, command: "zones defaults",
            options: ProfileValues.options.subtracting(["sex", "weight"]).union([DFAZones.workoutOption, StoreLocation.option]),
            flags: ["json"])
        if arguments.has("help") {
            context.output.line(defaultsHelp)
            return .success
        }
        try arguments.expectPositionals(atMost: 0)
        if arguments["hr-model"] == DFAZones.model { return try DFAZones.run(arguments, context) }

        let profile = try ProfileValues.profile(from: arguments.requestValues)
        let powerModel = try ProfileValues.powerZoneModel(arguments.requestValues)
        let heartRateModel = try ProfileValues.heartRateZoneModel(arguments.requestValues)
        // After the values' own checks, so a wrong value is named first.
        for option in [DFAZones.workoutOption, StoreLocation.option] where arguments[option] != nil {
            throw UsageError(
                "--\(option) is for --hr-model dfa, the zones from a ramp's DFA a1 thresholds, as in "
                    + "'sensorbridge zones defaults --hr-model dfa --workout 12'")
        }

        let wantsHeartRate = ProfileValues.wantsHeartRate(arguments.requestValues)
        guard wantsHeartRate || profile.functionalThresholdPower != nil else {
            throw UsageError(
                "give a profile: --age N (or --birth-date YYYY-MM-DD) and --resting-hr N for heart-rate zones, "
                    + "--ftp W for power zones; run 'sensorbridge zones defaults --help' for examples")
        }
        if wantsHeartRate, heartRateModel != .lactateThreshold, profile.restingHeartRate == nil,
            profile.age == nil, profile.birthDate == nil, profile.maximumHeartRate == nil
        {
            // Only --lthr was given, for a model that does not use it.
            throw UsageError(
                "--lthr is for Friel's %LTHR zones: add --hr-model lthr (\(heartRateModel.shortName) zones need "
                    + (heartRateModel == .reserve ? "--resting-hr N and " : "") + "one of --age N, --birth-date YYYY-MM-DD or --max-hr N)")
        }

        let today = ProfileValues.today()
        var sections: [Section] = []
        do {
            if wantsHeartRate {
                let configuration = try profile.heartRateZoneConfiguration(model: heartRateModel, on: today)
                func maximum() throws(ZoneProfileError) -> String {
                    let origin =
                        profile.maximumHeartRate != nil ? "measured" : "208 - 0.7 x age \(try profile.age(on: today))"
                    return "maximum \(try profile.maximumHeartRate(on: today).formatted) (\(origin))"
                }
                let (title, basis) =
                    switch heartRateModel {
                    case .reserve:
                        ("Heart-rate zones (system, count/min): resting \(profile.restingHeartRate ?? 0), \(try maximum())",
                         "of reserve")
                    case .maximum: ("Heart-rate zones (system, count/min, % of maximum): \(try maximum())", "of maximum")
                    case .lactateThreshold:
                        ("Heart-rate zones (system, count/min, Friel's % of LTHR): LTHR \(profile.lactateThresholdHeartRate ?? 0)",
                         "of LTHR")
                    }
                sections.append(
                    Section(
                        configuration: configuration, title: title, basis: basis,
                        percentages: heartRateModel.percentages, names: heartRateModel.zoneNames))
            }
            if let section = try powerSection(profile, powerModel) { sections.append(section) }
        } catch {
            throw UsageError(ProfileValues.advice(for: error, profile: profile))
        }
        print(sections, arguments, context)
        return .success
    }

    /// The power zones of `profile`'s FTP, nil without one.
    static func powerSection(_ profile: AthleteProfile, _ model: PowerZoneModel) throws(ZoneProfileError) -> Section? {
        guard let ftp = profile.functionalThresholdPower else { return nil }
        let configuration = try profile.cyclingPowerZoneConfiguration(model: model)
        return Section(
            configuration: configuration,
            title: "Cycling-power zones (system, W): FTP \(ftp), \(configuration.zones.count) zones",
            basis: "of FTP", percentages: model.percentages,
            names: configuration.zones.map { String($0.index + 1) })
    }

    /// The sections as tables, or with `--json` one object by quantity type (and `extra` members).
    static func print(_ sections: [Section], _ arguments: CommandArguments, _ context: CommandContext, extra: JSONObject = JSONObject()) {
        if arguments.has("json") {
            var object = JSONObject()
            for section in sections {
                object.append(section.configuration.quantityType.identifier, section.configuration.jsonValue)
            }
            for (key, value) in extra.pairs { object.append(key, value) }
            context.output.line(JSONValue.object(object).serialized)
        } else {
            context.output.line(sections.map(\.table).joined(separator: "\n\n"))
        }
    }


    /// One configuration with what the human table says about it.
    struct Section {
        let configuration: WorkoutZoneConfiguration
        let title: String
        /// What the percentages are of: `of reserve`, `of FTP`.
        let basis: String
        /// The model's boundaries in percent, one per boundary.
        let percentages: [Int]
        /// The zones' names, one per zone: 1, 2, ... (Friel's: 1, 2, 3, 4, 5a, 5b, 5c).
        let names: [String]
        /// What each zone spans, when not percentages of one value (the DFA zones).
        var spans: [String]? = nil

        /// The title, then one line per zone (named, numbered from 1) with its bounds and share.
        var table: String {
            func column(_ text: String, _ width: Int) -> String {
                String(repeating: " ", count: max(0, width - text.count)) + text
            }
            var lines = [title, "  zone  from (>=)  to (<)  \(basis)"]
            for zone in configuration.zones {
                let share =
                    if let spans { spans[zone.index] } else {
                    switch zone.index {
                    case 0: "below \(percentages[0]) %"
                    case percentages.count: "\(percentages[zone.index - 1]) % and above"
                    default: "\(percentages[zone.index - 1]) to \(percentages[zone.index]) %"
                    }
                    }
                lines.append(
                    column(names[zone.index], 6) + column(zone.minimum.map { $0.value.formatted } ?? "-", 11)
                        + column(zone.maximum.map { $0.value.formatted } ?? "-", 8) + "  " + share)
            }
            return lines.joined(separator: "\n")
        }
    }
}
