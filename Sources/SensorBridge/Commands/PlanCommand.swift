import Export
import Foundation
import Outputs
import SensorCore
import Workouts
import WorkoutStore
import Zones

/// `sensorbridge plan FILE`: a structured workout (FIT, .zwo or JSON) read and shown step by
/// step, as it will be ridden.
enum PlanCommand {
    static let help = """
        Usage: sensorbridge plan FILE [--ftp N] [--athlete NAME] [--store PATH] [--json]

        Reads a structured workout and prints its steps in the order they are ridden (repeats
        unrolled), each with its time and its target: power as % of FTP with the watts for your
        FTP, watts, a ramp (50% → 75%), power or heart-rate zones, a heart-rate range, a cadence.
        FILE is a FIT workout (Garmin Connect's, intervals.icu's), Zwift's .zwo (what Zwift,
        intervals.icu and TrainerRoad export) or SensorBridge's JSON form (README, "Workout
        plans"). A file it cannot read is refused with what is wrong and where.

        Options:
          --ftp N                    the FTP in W the watts are worked out for (default: the
                                     profile's, or --athlete's, in the store)
        \(AthleteOption.help)
        \(StoreLocation.help)
          --json                     the plan as JSON: name, sport, duration (s; null when a step
                                     is open), steps with index (FIT's wkt_step_index), round, of,
                                     name, duration, target, watts (at the step's start),
                                     cadence and text (the target in words)

        Examples:
          sensorbridge plan sweet-spot.zwo
          sensorbridge plan intervals.json --ftp 250 --json
        """

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(
            words, command: "plan", options: ["ftp", AthleteOption.option, StoreLocation.option], flags: ["json"])
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 1)
        let givenFTP = try arguments.wholeNumber("ftp", in: AthleteProfile.functionalThresholdPowerRange, example: "250 (W)")
        guard let path = arguments.positionals.first else {
            throw UsageError("give the plan: a .zwo file or a JSON plan, for example sensorbridge plan sweet-spot.zwo")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw UsageError("\(path): cannot be read (\((error as NSError).localizedDescription)); give a .zwo or JSON plan")
        }
        let plan: WorkoutPlan
        do {
            plan = try WorkoutPlanFile.read(data)
        } catch {
            context.errors.line("sensorbridge plan: \(path): \(error)")
            return .failure
        }
        let ftp = try givenFTP ?? profileFTP(arguments, context)
        if arguments.has("json") {
            context.output.line(PlanText.json(plan, ftp: ftp).serialized)
            return .success
        }
        let steps = plan.sequence
        context.output.line(
            "\(plan.name) (\(plan.sport.rawValue)): \(steps.count) step\(steps.count == 1 ? "" : "s"), "
                + (plan.duration.map { $0.clockText } ?? "open-ended (a step ends at the lap key)")
                + (ftp.map { ", FTP \($0) W" } ?? ""))
        for (number, planned) in steps.enumerated() {
            let name = planned.step.name ?? planned.round.map { "\($0.number)/\($0.of)" } ?? ""
            let time = if case .time(let length) = planned.step.length { length.clockText } else { "open" }
            context.output.line(
                "  \(String(number + 1).leftPadded(3))  \(name.padding(toLength: 14, withPad: " ", startingAt: 0)) "
                    + "\(time.leftPadded(8))  \(PlanText.describe(planned.step, ftp: ftp))")
        }
        if ftp == nil, steps.contains(where: \.step.target.isRelativeToFTP) {
            context.errors.line("sensorbridge plan: no FTP: give --ftp N, or set one with 'sensorbridge profile set --ftp N', for the watts")
        }
        return .success
    }

    /// The profile's FTP (the athlete's with --athlete) in the store, when there is one.
    static func profileFTP(_ arguments: CommandArguments, _ context: CommandContext) throws -> Int? {
        let store = try StoreLocation.openIfPresent(arguments, context)
        if let athlete = try AthleteOption.athlete(arguments, in: store) { return athlete.preferences.profile.functionalThresholdPower }
        return try store?.preferences().profile.functionalThresholdPower
    }
}
