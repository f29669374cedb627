import Foundation
import Outputs
import SensorCore
import Workouts
import WorkoutStore
import Zones

/// `sensorbridge workouts zones`: time in zone by day, week or month over many stored workouts, all
/// re-bucketed into one configuration.
enum WorkoutZonesReport {
    static let help = """
        Usage: sensorbridge workouts zones --quantity heart-rate|power --by day|week|month
                   [--zones A,B,... | --normalize N] [--from DAY] [--to DAY] [--activity TYPE]
                   [--json] [--store PATH]

        Time in zone summed by day, by ISO week (Monday to Sunday) or by calendar month, in local time,
        over the finished workouts ($TZ, when set, names the time zone). Every workout is re-bucketed from its raw samples into one
        set of zones, with its own pauses and holds, so workouts recorded with other zones (five
        against seven, before and after a new FTP) add up.

        The zones are --zones, else your zones in effect now: the preferred ones, else those your
        profile gives ('sensorbridge zones show'); --normalize N redraws those as N zones.

        Options:
          --quantity heart-rate|power
          --by day|week|month
          --zones A,B,...            zone boundaries in bpm or W (2 to 8, increasing)
          --normalize N              N zones (3 to 9): the lowest and highest boundary of the
                                     zones in effect stay, the span between them is cut into
                                     N - 2 zones of equal width, and the zones below and above
                                     stay open
          --from YYYY-MM-DD, --to YYYY-MM-DD, --activity TYPE, --athlete NAME
                                     which workouts, as for 'sensorbridge workouts list' (with
                                     --athlete, the zones in effect are that athlete's; with
                                     --activity, a multisport workout's time in that activity only)
          --json                     {"quantityType":"heartRate","by":"week","configuration":{...},
                                     "periods":[{"period":"2026-W45","start":"2026-11-02",
                                     "workouts":3,"zoneDurations":[...],"totalDuration":...}]}
        \(StoreLocation.help)

        Examples:
          sensorbridge workouts zones --quantity heart-rate --by week
          sensorbridge workouts zones --quantity heart-rate --by week --normalize 7
          sensorbridge workouts zones --quantity power --by month --zones 150,200,250,300 --json
        """

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(
            words, command: "workouts zones",
            options: ["quantity", "by", "zones", "normalize", "from", "to", "activity", AthleteOption.option, StoreLocation.option],
            flags: ["json"])
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 0)
        var request = try ZoneTotalsReport.Request(arguments.requestValues, calendar: context.calendar)
        request.filter.athlete = try AthleteOption.workoutsName(arguments)
        let store = try StoreLocation.openForReading(arguments, context)
        let report = try ZoneTotalsReport.run(request, store: store, timeZone: context.timeZone, today: today(context))
        context.output.write(arguments.has("json") ? ZoneTotalsReport.json(report).serialized + "\n" : ZoneTotalsReport.text(report))
        return .success
    }

    /// The day it is, for an age from a birth date.
    static func today(_ context: CommandContext) -> CalendarDate? {
        CalendarDate(Date(), in: context.calendar)
    }
}
