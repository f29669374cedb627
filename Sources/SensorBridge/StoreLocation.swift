import Foundation
import WorkoutStore

/// Where the workout store is, for every command that uses it: `--store PATH`, else the
/// `SENSORBRIDGE_STORE` environment variable, else `$XDG_DATA_HOME/sensorbridge/workouts.sqlite`,
/// else `~/.local/share/sensorbridge/workouts.sqlite`.
enum StoreLocation {
    /// The option commands declare.
    static let option = "store"

    /// The help line commands print for `--store`.
    static let help = """
          --store PATH               the workout store (default: $SENSORBRIDGE_STORE, else
                                     $XDG_DATA_HOME/sensorbridge/workouts.sqlite, else
                                     ~/.local/share/sensorbridge/workouts.sqlite)
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

    /// Opens (creating when needed) the store, and notes interrupted recordings on standard error
    /// unless `noteUnfinished` is false.
    static func open(_ arguments: CommandArguments, _ context: CommandContext, noteUnfinished: Bool = true) throws
        -> WorkoutStore
    {
        guard let path = try path(arguments, context) else {
            throw UsageError(
                "cannot tell where the workout store is: neither XDG_DATA_HOME nor HOME is set; "
                    + "give --store PATH or set SENSORBRIDGE_STORE")
        }
        let store = try WorkoutStore(path: path)
        if noteUnfinished { try self.noteUnfinished(store, context) }
        return store
    }

    /// The store when its file exists, for commands that only read it; nil otherwise.
    static func openIfPresent(_ arguments: CommandArguments, _ context: CommandContext) throws -> WorkoutStore? {
        guard let path = try path(arguments, context), FileManager.default.fileExists(atPath: path) else { return nil }
        return try open(arguments, context, noteUnfinished: false)
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
