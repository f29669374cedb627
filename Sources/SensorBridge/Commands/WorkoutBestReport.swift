import Export
import Outputs
import WorkoutStore

/// `sensorbridge workouts best`: best efforts across workouts, the power-duration curve.
enum WorkoutBestReport {
    static let help = """
        Usage: sensorbridge workouts best [--by week|month] [--from DAY] [--to DAY] [--activity TYPE]
                   [--athlete NAME|--all-athletes] [--json] [--svg FILE [--force]] [--store PATH]

        The best efforts over the finished workouts: for 1 s to 60 min, the highest mean power
        (mean-maximal power, the power-duration curve) and the highest mean heart rate, each with
        the workout and day it came from; with --by, the best power of each week or month side by
        side. A workout's efforts are found in the value held at each second of its active time
        (the series its normalized power is computed from): a 20 min effort is 20 min of riding,
        pauses left out. 'sensorbridge profile suggest' proposes an FTP and heart rates from them.

        Options:
          --by week|month            a column per ISO week or month (local time, or $TZ)
          --from YYYY-MM-DD          workouts that start on this day or later
          --to YYYY-MM-DD            workouts that start on this day or earlier
          --activity TYPE            workouts of this type, or with an activity of it (their
                                     efforts are the whole workout's)
          --athlete NAME             only this athlete's workouts
          --all-athletes             every rider's workouts (the default without --athlete)
          --json                     {"periods":[{"period":null,"workouts":3,"power":[{"seconds":1,
                                     "value":612.5,"workout":3,"day":"2026-11-30","offset":1234}, ...],
                                     "heartRate":[...],"lowestHeartRate":[...]}]} ("offset": where the
                                     effort began, seconds from the workout's start)
          --svg FILE                 also write the power-duration curve (a line per period) as an SVG picture
          --force                    replace the --svg file when it exists
        \(StoreLocation.help)

        Examples:
          sensorbridge workouts best
          sensorbridge workouts best --by month --svg curve.svg
          sensorbridge workouts best --from 2026-10-01 --json
        """

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(
            words, command: "workouts best", options: ["by", "from", "to", "activity", "svg", AthleteOption.option, StoreLocation.option],
            flags: ["json", "force", AthleteOption.allAthletes])
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 0)
        if arguments.has("force") && arguments["svg"] == nil {
            throw UsageError("--force replaces the --svg file; give it with --svg FILE")
        }
        var request = try BestEffortsReport.Request(arguments.requestValues, calendar: context.calendar)
        request.filter.athlete = try AthleteOption.workoutsName(arguments)
        let report = try BestEffortsReport(request, store: try StoreLocation.openForReading(arguments, context), calendar: context.calendar)
        if let path = arguments["svg"] {
            let curves = report.periods.map { (name: $0.name ?? "all workouts", efforts: $0.power.map(\.effort)) }
            let title = "Power-duration curve" + (arguments[AthleteOption.option].map { ", \($0)" } ?? "")
            try WorkoutLoadReport.write(PowerCurveChart.render(curves, title: title, unit: "W"), to: path, replacing: arguments.has("force"))
        }
        context.output.write(arguments.has("json") ? report.json.serialized + "\n" : report.text)
        return .success
    }
}
