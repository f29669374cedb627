import Foundation

/// Where a store is, and how one that only reads or one that changes it opens it: the command
/// line's commands and the web app's routes open it through this one rule, each time they need it.
public struct StoreOpener: Sendable {
    /// A SQLite path or a `postgresql://` URL.
    public let path: String
    /// This user's default store; a reader finds an empty store there before anything was saved.
    public let defaultPath: String?

    public init(path: String, defaultPath: String?) {
        self.path = path
        self.defaultPath = defaultPath
    }

    /// Opens the store only to read it (`WorkoutStore(readingAt:)`): nothing is created or
    /// written. At the default location, where nothing was saved yet, an empty store stands in.
    public func openForReading() throws -> WorkoutStore {
        if path == defaultPath, !FileManager.default.fileExists(atPath: path) {
            return try WorkoutStore.empty(standingFor: path)
        }
        return try WorkoutStore(readingAt: try StoreAddress.parse(path))
    }

    /// Opens the store to change it, creating it when needed.
    public func open() throws -> WorkoutStore {
        try WorkoutStore(address: try StoreAddress.parse(path))
    }
}
