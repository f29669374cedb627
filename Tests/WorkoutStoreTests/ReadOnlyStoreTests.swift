import Foundation
import Testing
@testable import WorkoutStore

/// `WorkoutStore(readingAt:)`: commands that only read create nothing, write nothing and migrate
/// nothing, in the file or beside it, and can read a store that belongs to another user.
@Suite struct ReadOnlyStoreTests {
    @Test func aMissingStoreIsAnErrorAndNothingIsCreated() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("rides/workouts.sqlite")
        let error = #expect(throws: WorkoutStoreError.self) { try WorkoutStore(readingAt: path) }
        #expect(error == .noStore(path: path))
        #expect(error?.description.contains("none was created") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    /// An older store of this user's is brought up to date, as any command would on first use.
    @Test func anOlderStoreOfThisUserIsMigratedFirst() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        try MigrationTests.makeVersion1Store(at: path)
        let reader = try WorkoutStore(readingAt: path)
        #expect(try reader.connection.userVersion == WorkoutStore.schemaVersion)
        #expect(try reader.workouts().count == 1)
    }

    /// Another user's older store cannot be brought up to date by reading it: it is refused unchanged.
    @Test func anotherUsersOlderStoreIsRefusedUnchanged() throws {
        try #require(geteuid() == 0, "needs root to give the store to another user")
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        try MigrationTests.makeVersion1Store(at: path)
        #expect(chown(path, 65534, 65534) == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = #expect(throws: WorkoutStoreError.self) { try WorkoutStore(readingAt: path) }
        #expect(error == .olderSchema(path: path, version: 1, known: WorkoutStore.schemaVersion))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["workouts.sqlite"])
    }

    @Test func anEmptyFileIsNotAStoreToRead() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let error = #expect(throws: WorkoutStoreError.self) { try WorkoutStore(readingAt: path) }
        #expect(error == .notOurs(path: path, reason: "it is empty"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["workouts.sqlite"])
    }

    @Test func aReadingStoreReadsAndRefusesToWrite() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let saved = try WorkoutStore(path: path).save(try ride())
        let reader = try WorkoutStore(readingAt: path)
        #expect(reader.isReadOnly)
        #expect(try reader.workouts().map(\.id) == [saved])
        #expect(try reader.workout(saved).samples.count == (try ride().samples.count))
        #expect(throws: WorkoutStoreError.self) { try reader.deleteWorkout(saved) }
        #expect(try WorkoutStore(readingAt: path).workouts().count == 1)
    }

    /// Another user's store (here: a file owned by user 65534) that no writer has open is read as a
    /// snapshot: nothing appears beside it (a `-shm` made by this user would stop its owner's next
    /// write). A writer that comes and goes between two reads is seen by the second.
    @Test func anotherUsersStoreIsReadWithoutMakingAnythingBesideIt() throws {
        try #require(geteuid() == 0, "needs root to give the store to another user")
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let first = try WorkoutStore(path: path).save(try ride())
        #expect(chown(path, 65534, 65534) == 0)
        let reader = try WorkoutStore(readingAt: path)
        #expect(try reader.workouts().map(\.id) == [first])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["workouts.sqlite"])

        let second = try WorkoutStore(path: path).save(try ride(seed: 2))
        #expect(try reader.workouts().map(\.id) == [first, second])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["workouts.sqlite"])
    }

    /// While a writer has the store open (its `-wal` is there), another user's store is read through
    /// SQLite's locks like any other, and sees what the writer commits.
    @Test func anotherUsersStoreIsReadWhileItsOwnerWrites() throws {
        try #require(geteuid() == 0, "needs root to give the store to another user")
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let writer = try WorkoutStore(path: path)
        let first = try writer.save(try ride())
        #expect(chown(path, 65534, 65534) == 0)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        let reader = try WorkoutStore(readingAt: path)
        #expect(try reader.workouts().map(\.id) == [first])
        let second = try writer.save(try ride(seed: 2))
        #expect(try reader.workouts().map(\.id) == [first, second])
    }
}
