import Foundation
import Outputs
import SensorCore
import WorkoutStore

/// `sensorbridge sync --to URL`: copies this box's finished workouts to another store, most often
/// a PostgreSQL database shared by many bridges. Offline first: record into the box's own store,
/// sync when the network is back.
enum SyncCommand {
    static let help = """
        Usage: sensorbridge sync --to URL|PATH [--store PATH] [--json]

        Copies every finished workout of this box's store (--store) that the other store does not
        hold yet to it: most often a PostgreSQL database shared by many bridges. A workout is known
        by its UUID, so running sync twice copies nothing twice, and a sync cut off half way (the
        network, Ctrl-C, kill -9) copies the rest when run again: each workout is copied whole, in
        one transaction, or not at all. The workouts stay in this box's store too. Unfinished
        recordings are not copied: 'sensorbridge workouts recover' finishes them first.

        On a terminal, standard error shows how far it is; otherwise it prints a line per workout
        copied. Exit status 1 when a workout could not be copied (what was copied stays).

        Options:
          --to URL|PATH              the store to copy to: postgresql://USER@HOST[:PORT]/DB (the
                                     password from ~/.pgpass), or a SQLite file
        \(StoreLocation.help)
          --json                     print what was copied as JSON

        Examples:
          sensorbridge sync --to postgresql://coach@club.example/rides
          sensorbridge sync --to 'postgresql://rides@/rides?host=/var/run/postgresql' --json
        """

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(words, command: "sync", options: ["to", StoreLocation.option], flags: ["json"])
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 0)
        guard let to = arguments["to"], !to.isEmpty else {
            throw UsageError("give the store to copy to: --to postgresql://USER@HOST/DATABASE (or a SQLite file)")
        }
        let source = try StoreLocation.openForReading(arguments, context, noteUnfinished: false)
        let target = try WorkoutStore(address: try StoreAddress.parse(to))
        guard target.path != source.path else { throw UsageError("--to \(to) is the store being copied from; give another store") }

        let listings = try source.workouts()
        let present = try target.workoutUUIDs()
        let unfinished = listings.filter { !$0.isFinished }.count
        let missing = listings.filter { $0.isFinished && !present.contains($0.identity.uuid) }
        let progress = Progress(output: context.errors)
        var copied: [(local: WorkoutID, there: WorkoutID)] = []
        var failure: WorkoutStoreError?
        for (index, listing) in missing.enumerated() {
            if context.errorsAreTerminal { progress.overwrite("sensorbridge sync: copying \(index + 1) of \(missing.count)") }
            do {
                // nil: another process copied it since the list was read.
                guard let id = try target.copyWorkout(listing.id, from: source) else { continue }
                copied.append((listing.id, id))
                if !context.errorsAreTerminal {
                    progress.line(
                        "sensorbridge sync: copied workout \(listing.id) (\(context.localTime(listing.startDate)), "
                            + "\(listing.activityType.rawValue)) as \(id) [\(index + 1)/\(missing.count)]")
                }
            } catch {
                failure = error
                break
            }
        }
        if context.errorsAreTerminal { progress.overwrite("") }

        let already = listings.count - unfinished - missing.count
        if arguments.has("json") {
            let pairs: [JSONValue] = copied.map { pair in
                .object(["id": .number(Double(pair.local.rawValue)), "copiedAs": .number(Double(pair.there.rawValue))])
            }
            let summary: JSONObject = [
                "to": .string(target.path), "copied": .array(pairs), "alreadyThere": .number(Double(already)),
                "unfinished": .number(Double(unfinished)), "notCopied": .number(Double(missing.count - copied.count)),
            ]
            context.output.line(JSONValue.object(summary).serialized)
        } else {
            context.output.line(
                "Copied \(count(copied.count)) to \(target.path)"
                    + (already > 0 ? "; \(already) \(already == 1 ? "was" : "were") there already." : "."))
        }
        if unfinished > 0 {
            context.errors.line(
                "sensorbridge sync: \(count(unfinished, "unfinished workout")) not copied; run 'sensorbridge workouts recover' to "
                    + "finish \(unfinished == 1 ? "it" : "them"), then sync again")
        }
        guard let failure else { return .success }
        context.errors.line(
            "sensorbridge sync: stopped after \(count(copied.count)) of \(missing.count): \(failure.reason). What was copied "
                + "stays; run sync again to copy the rest")
        return .failure
    }

    private static func count(_ n: Int, _ noun: String = "workout") -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}
