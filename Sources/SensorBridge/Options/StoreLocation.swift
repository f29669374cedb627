import Foundation
import Outputs
import WorkoutStore

/// Where the workout store is, for every command that uses it: `--store PATH`, else the
/// `SENSORBRIDGE_STORE` environment variable, else `$XDG_DATA_HOME/sensorbridge/workouts.sqlite`,
/// else `~/.local/share/sensorbridge/workouts.sqlite`. `--store` and the variable take a
/// `postgresql://` URL too: a database shared by many bridges, which recordings reach through
/// this box's own store (the default path), their journal.
enum StoreLocation {
    /// The option commands declare.
    static let option = "store"

    /// The help line commands print for `--store`.
    static let help = """
          --store PATH|URL           the workout store (default: $SENSORBRIDGE_STORE, else
                                     $XDG_DATA_HOME/sensorbridge/workouts.sqlite, else
                                     ~/.local/share/sensorbridge/workouts.sqlite), or a
                                     shared PostgreSQL store: postgresql://USER@HOST/DB
        """

    /// The store's path; nil when nothing says where it is (no flag, no variable, no HOME).
    static func path(_ arguments: CommandArguments, _ context: CommandContext) throws(UsageError) -> String? {
        if let path = arguments[option] {
            guard !path.isEmpty else { throw UsageError("--store needs a file path, for example --store ~/rides.sqlite") }
            return path
        }
        if let path = context.environment["SENSORBRIDGE_STORE"], !path.isEmpty { return path }
        return WorkoutStore.defaultPath(environment: context.environment)
    }

    /// The store's path, or a usage error when nothing says where it is.
    static func requiredPath(_ arguments: CommandArguments, _ context: CommandContext) throws(UsageError) -> String {
        guard let path = try path(arguments, context) else {
            throw UsageError(
                "cannot tell where the workout store is: neither XDG_DATA_HOME nor HOME is set; "
                    + "give --store PATH or set SENSORBRIDGE_STORE")
        }
        return path
    }

    /// This box's own store, where recordings are journaled when the store is a shared
    /// PostgreSQL one: the default path.
    static func localPath(_ context: CommandContext) throws(UsageError) -> String {
        guard let path = WorkoutStore.defaultPath(environment: context.environment) else {
            throw UsageError(
                "a shared store needs this box's own store to journal recordings in, and neither XDG_DATA_HOME nor HOME is set")
        }
        return path
    }

    /// The store recordings of `store` are journaled in, where interrupted ones wait: `store`
    /// itself, or for a shared store this box's own (nil when there is none yet).
    static func journal(of store: WorkoutStore, _ context: CommandContext) throws -> WorkoutStore? {
        guard store.isShared else { return store }
        let path = try localPath(context)
        return FileManager.default.fileExists(atPath: path) ? try WorkoutStore(path: path) : nil
    }

    /// How commands open the store `arguments` and the environment name.
    static func opener(_ arguments: CommandArguments, _ context: CommandContext) throws(UsageError) -> StoreOpener {
        StoreOpener(path: try requiredPath(arguments, context), defaultPath: WorkoutStore.defaultPath(environment: context.environment))
    }

    /// Opens (creating when needed) the store, and notes interrupted recordings on standard error
    /// unless `noteUnfinished` is false.
    static func open(_ arguments: CommandArguments, _ context: CommandContext, noteUnfinished: Bool = true) throws
        -> WorkoutStore
    {
        let store = try opener(arguments, context).open()
        if noteUnfinished { try self.noteUnfinished(store, context) }
        return store
    }

    /// Opens the store for a command that only reads it: nothing is created or written
    /// (`StoreOpener.openForReading`), so others' stores can be read too. A store named by --store
    /// or SENSORBRIDGE_STORE must exist; at the default location, where nothing was saved yet, the
    /// command reads an empty store.
    static func openForReading(_ arguments: CommandArguments, _ context: CommandContext, noteUnfinished: Bool = true) throws
        -> WorkoutStore
    {
        let store = try opener(arguments, context).openForReading()
        if noteUnfinished { try self.noteUnfinished(store, context) }
        return store
    }

    /// The store when its file exists, opened only for reading; nil otherwise.
    static func openIfPresent(_ arguments: CommandArguments, _ context: CommandContext) throws -> WorkoutStore? {
        guard let path = try path(arguments, context) else { return nil }
        let address = try StoreAddress.parse(path)
        if case .sqlite = address, !FileManager.default.fileExists(atPath: path) { return nil }
        return try WorkoutStore(readingAt: address)
    }

    /// One line on standard error per interrupted recording, saying what to do about it.
    static func noteUnfinished(_ store: WorkoutStore, _ context: CommandContext) throws {
        for workout in try store.unfinishedWorkouts() where !workout.isRecording {
            context.errors.line(
                "sensorbridge: workout \(workout.id) (\(workout.activityType.rawValue), \(context.localTime(workout.startDate))) "
                    + "was interrupted after \(workout.recordedUntil.clockText); run 'sensorbridge workouts "
                    + "recover' to finish it from what was saved, or 'sensorbridge workouts recover --discard' to delete it")
        }
    }
}
