import Captures
import Export
import Foundation
import Outputs
import SensorCore
import Workouts
import WorkoutStore
import Zones

/// `sensorbridge workouts load`: daily training load with fitness, fatigue and form.
enum WorkoutLoadReport {
    static let help = """
        Usage: sensorbridge workouts load [--from DAY] [--to DAY] [--activity TYPE] [--athlete NAME|--all-athletes]
                   [--json] [--svg FILE [--force]] [--store PATH]

        Daily training load over the finished workouts, with fitness, fatigue and form, by day in
        local time ($TZ, when set, names the time zone).

        A workout's load is its TSS when it has power and the profile it was recorded with has an
        FTP: TSS = active hours x IF x IF x 100, IF = NP / FTP (an hour at FTP is 100). Without
        power it is its hrTSS: Banister's TRIMP of its heart rate over the TRIMP of an hour at your
        lactate-threshold heart rate, x 100 (needs resting, maximum and threshold heart rate). A
        workout with neither counts 0 and is noted. A workout stored before workouts kept their
        profile uses your profile now; one recorded before you set your FTP or threshold heart
        rate borrows the one set since (its athlete's), marked "thresholdsSetLater" in --json. A
        multisport workout's load is the sum of its activities' (the bike's TSS, the run's
        hrTSS); with --activity, of that type's activities only.

        Fitness (CTL) and fatigue (ATL) are exponentially weighted averages of the daily load over
        42 and 7 days, and form (TSB) is yesterday's fitness minus yesterday's fatigue:
          fitness(d) = fitness(d-1) + (load(d) - fitness(d-1)) / 42
          fatigue(d) = fatigue(d-1) + (load(d) - fatigue(d-1)) / 7
          form(d)    = fitness(d-1) - fatigue(d-1)
        They start at 0 on the day before the first stored workout, whatever --from says.

        Options:
          --from YYYY-MM-DD          the first day shown (default: six weeks before --to)
          --to YYYY-MM-DD            the last day shown (default: today)
          --activity TYPE            only workouts of this type, or with an activity of it (of a
                                     multisport workout, that activity's load alone)
          --athlete NAME             only this athlete's workouts, with their profile for workouts
                                     stored without one
          --all-athletes             every rider's workouts in one fitness and fatigue; without
                                     it or --athlete, workouts of several riders (athletes, and
                                     your own profile) are refused: one person's fitness is not
                                     another's
          --json                     {"days":[{"day":"2026-11-02","workouts":1,"load":87.2,
                                     "fitness":2.08,"fatigue":12.46,"form":0}, ...],
                                     "workouts":[{"id":3,"day":"2026-11-02","athlete":"Anna",
                                     "load":{...}}, ...]}
          --svg FILE                 also write the days as a chart (an SVG picture)
          --force                    replace the --svg file when it exists
        \(StoreLocation.help)

        Examples:
          sensorbridge workouts load
          sensorbridge workouts load --from 2026-09-01 --svg load.svg
          sensorbridge workouts load --activity cycling --json
        """

    /// Days shown when --from is not given, ending with --to.
    static let defaultDays = 42

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(
            words, command: "workouts load", options: ["from", "to", "activity", "svg", AthleteOption.option, StoreLocation.option],
            flags: ["json", "force", AthleteOption.allAthletes])
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 0)
        if arguments.has("force") && arguments["svg"] == nil {
            throw UsageError("--force replaces the --svg file; give it with --svg FILE")
        }
        var filter = try WorkoutsCommand.filter(arguments, calendar: context.calendar)
        let to = try arguments.requestValues.day("to")
        let from = try arguments.requestValues.day("from")
        guard let last = to ?? WorkoutZonesReport.today(context), let first = from ?? last.adding(days: 1 - defaultDays)
        else { throw UsageError("--from and --to need days in years 1 to 9999") }
        if first > last { throw UsageError("--from \(first) is after today; give --to as well, or an earlier --from") }
        // Fitness and fatigue build up from the first workout, so every earlier workout counts.
        filter.from = nil

        let store = try StoreLocation.openForReading(arguments, context)
        let workouts = try store.workoutLoads(matching: filter, calendar: context.calendar)
        // One person's fitness and fatigue: several riders' workouts are not added up unasked.
        let athletes = workouts.map(\.athlete)
        if filter.athlete == nil, !arguments.has(AthleteOption.allAthletes), Set(athletes).count > 1 {
            throw UsageError(
                "these workouts are of several riders (\(AthleteOption.riders(athletes))), and fitness and fatigue add "
                    + "up one person's load: give --athlete NAME for one rider's, or --all-athletes to add them all up")
        }
        let report = TrainingLoadReport(workouts, from: first, through: last, calendar: context.calendar)
        if let path = arguments["svg"] {
            let title = "Training load, \(first) to \(last)"
            try write(TrainingLoadChart.render(report.days, title: title), to: path, replacing: arguments.has("force"))
        }
        context.output.write(arguments.has("json") ? report.json.serialized + "\n" : report.text)
        return .success
    }

    /// Writes the chart under a temporary name and renames it into place.
    static func write(_ svg: String, to path: String, replacing: Bool) throws {
        do {
            let file = try OutputFile(URL(fileURLWithPath: path), mode: replacing ? .replace : .create)
            try file.write(Array(svg.utf8))
            try file.commit()
        } catch where error.step == .exists {
            throw ExportCommand.ExportError("\(error); give --force to replace it, or --svg another name")
        } catch {
            throw ExportCommand.ExportError("\(error); give --svg a file you can write to")
        }
    }
}
