import Foundation
import Outputs
import SensorCore
import WorkoutStore

/// `sensorbridge sync --to URL` (or `--from URL`): copies finished workouts between this box's
/// store and another, most often a PostgreSQL database shared by many bridges, and brings the
/// people (the profile, athletes, their zones and sensors) of both to the latest change made on
/// either. Offline first: record into the box's own store, sync when the network is back.
enum SyncCommand {
    static let help = """
        Usage: sensorbridge sync --to URL|PATH | --from URL|PATH [--store PATH] [--json]

        Copies every finished workout of this box's store (--store) that the other store does not
        hold yet to it (--to): most often a PostgreSQL database shared by many bridges; --from
        copies the other store's workouts that this one lacks here instead. A workout is known
        by its UUID, so running sync twice copies nothing twice, and a sync cut off half way (the
        network, Ctrl-C, kill -9) copies the rest when run again: each workout is copied whole, in
        one transaction, or not at all. The workouts stay where they were too. Unfinished
        recordings are not copied: 'sensorbridge workouts recover' finishes them first.

        Both ways, whichever is given, the people are made the same in the two stores: the
        profile and preferred zones ('sensorbridge profile', 'zones set'), and each athlete's
        profile, zones and sensors ('sensorbridge athletes'). For each, the latest change made in
        either store wins (its time is kept with it; the clocks of the boxes should be right); an
        athlete removed in one store is removed from the other unless changed there after the
        removal. Running it again changes nothing.

        On a terminal, standard error shows how far it is; otherwise it prints a line per workout
        copied. Exit status 1 when a workout could not be copied (what was copied stays).

        Options:
          --to URL|PATH              the store to copy to: postgresql://USER@HOST[:PORT]/DB (the
                                     password from ~/.pgpass), or a SQLite file
          --from URL|PATH            the store to copy from, into this one
        \(StoreLocation.help)
          --json                     print what was copied as JSON

        Examples:
          sensorbridge sync --to postgresql://coach@club.example/rides
          sensorbridge sync --to 'postgresql://rides@/rides?host=/var/run/postgresql' --json
          sensorbridge sync --from postgresql://coach@club.example/rides
        """

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(words, command: "sync", options: ["to", "from", StoreLocation.option], flags: ["json"])
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 0)
        let (to, from) = (arguments["to"], arguments["from"])
        guard (to == nil) != (from == nil), let other = to ?? from, !other.isEmpty else {
            throw UsageError(
                "give the other store, either --to postgresql://USER@HOST/DATABASE (or a SQLite file) to copy this store's "
                    + "workouts to it, or --from ... to copy its workouts here")
        }
        let here = try StoreLocation.open(arguments, context, noteUnfinished: false)
        let there = try WorkoutStore(address: try StoreAddress.parse(other))
        guard there.path != here.path else {
            throw UsageError("--\(to != nil ? "to" : "from") \(other) is this box's store; give another store")
        }
        let people = try syncPeople(here, there)
        let (source, target) = to != nil ? (here, there) : (there, here)

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
        let direction = to != nil ? "to" : "from"
        if arguments.has("json") {
            let pairs: [JSONValue] = copied.map { pair in
                .object(["id": .number(Double(pair.local.rawValue)), "copiedAs": .number(Double(pair.there.rawValue))])
            }
            let summary: JSONObject = [
                .init(direction): .string(there.path), "copied": .array(pairs), "alreadyThere": .number(Double(already)),
                "unfinished": .number(Double(unfinished)), "notCopied": .number(Double(missing.count - copied.count)),
                "people": .object(["sent": Self.json(people.sent), "taken": Self.json(people.taken)]),
            ]
            context.output.line(JSONValue.object(summary).serialized)
        } else {
            context.output.line(
                "Copied \(count(copied.count)) \(direction) \(there.path)"
                    + (already > 0 ? "; \(already) \(already == 1 ? "was" : "were") there already." : "."))
            context.output.line("People: " + Self.text(people.sent, "sent") + "; " + Self.text(people.taken, "taken from there") + ".")
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

    /// Brings the people of `here` and `there` to the latest change made in either: each store
    /// takes what the other changed later, both worked out from the two as they were before.
    static func syncPeople(_ here: WorkoutStore, _ there: WorkoutStore) throws -> (sent: PeopleChanges, taken: PeopleChanges) {
        let (mine, theirs) = (try here.people(), try there.people())
        let sent = PeopleChanges.taken(by: theirs, from: mine)
        let taken = PeopleChanges.taken(by: mine, from: theirs)
        try there.take(sent)
        try here.take(taken)
        return (sent, taken)
    }

    /// `nothing sent`, `sent the profile, athletes Anna and Ben, the removal of Carl`.
    static func text(_ changes: PeopleChanges, _ verb: String) -> String {
        guard !changes.isEmpty else { return "nothing \(verb)" }
        var parts: [String] = []
        if changes.own != nil { parts.append("the profile") }
        if !changes.athletes.isEmpty {
            parts.append((changes.athletes.count == 1 ? "athlete " : "athletes ") + changes.athletes.map(\.record.name.rawValue).joined(separator: ", "))
        }
        if !changes.removed.isEmpty { parts.append("the removal of " + changes.removed.map(\.name.rawValue).joined(separator: ", ")) }
        return verb + " " + parts.joined(separator: ", ")
    }

    static func json(_ changes: PeopleChanges) -> JSONValue {
        .object([
            "profile": .bool(changes.own != nil), "athletes": .array(changes.athletes.map { .string($0.record.name.rawValue) }),
            "removed": .array(changes.removed.map { .string($0.name.rawValue) }),
        ])
    }
}
