import Captures
import Foundation
import Glibc
import Synchronization
import Testing

/// `OutputFile`: what is at the destination, and which temporaries exist, before and after a
/// commit, when released without one, and when a step fails.
@Suite final class OutputFileTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("outputfile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

    func contents(_ name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: url(name).path).map(Array.init)
    }

    /// The names in the folder, temporaries included.
    func names() throws -> Set<String> { Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)) }

    func temporaries() throws -> [String] {
        try names().filter { $0.hasPrefix(".") && $0.contains(".sensorbridge-") }.sorted()
    }

    func permissions(_ name: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: url(name).path)[.posixPermissions] as? Int)
    }

    static let old: [UInt8] = Array("the old file\n".utf8)

    /// Puts the old file at `name`.
    func makeOld(_ name: String, permissions: Int = 0o644) throws {
        try Data(Self.old).write(to: url(name))
        try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: url(name).path)
    }

    @Test func replaceWritesATemporaryAndRenamesItOverTheDestinationOnCommit() throws {
        try makeOld("out.bin")
        let file = try OutputFile(url("out.bin"), mode: .replace)
        try file.write([1, 2, 3])
        try file.write([])
        try file.write([4])
        // Until the commit the old file is there, whole, and the new one is a temporary beside it.
        #expect(contents("out.bin") == Self.old)
        let temporary = try #require(file.temporaryPath)
        #expect(try temporaries() == [URL(fileURLWithPath: temporary).lastPathComponent])
        #expect(temporary.hasPrefix(url(".out.bin.sensorbridge-").path))
        try file.commit()
        #expect(contents("out.bin") == [1, 2, 3, 4])
        #expect(try names() == ["out.bin"])
        try file.commit()  // again: nothing
        #expect(throws: OutputFileError.self) { try file.write([5]) }
    }

    @Test func replaceReleasedWithoutACommitLeavesTheDestinationAndNoTemporary() throws {
        try makeOld("out.bin")
        do {
            let file = try OutputFile(url("out.bin"), mode: .replace)
            try file.write(Array(repeating: 7, count: 100_000))
            #expect(try temporaries().count == 1)
        }
        #expect(contents("out.bin") == Self.old)
        #expect(try names() == ["out.bin"])
        // A new destination is not created at all.
        do {
            let file = try OutputFile(url("new.bin"), mode: .replace)
            try file.write([1])
        }
        #expect(try names() == ["out.bin"])
    }

    @Test func theReplacementKeepsTheOldFilesPermissionsAndANewFileGetsTheUsual() throws {
        try makeOld("private.bin", permissions: 0o600)
        let file = try OutputFile(url("private.bin"), mode: .replace)
        try file.commit()
        #expect(try permissions("private.bin") == 0o600)
        #expect(contents("private.bin") == [])

        // A new file: as open(2) with mode 0666 makes one (the umask applies).
        let reference = open(url("reference").path, O_WRONLY | O_CREAT | O_EXCL, 0o666)
        try #require(reference >= 0)
        close(reference)
        let new = try OutputFile(url("new.bin"), mode: .replace)
        try new.commit()
        #expect(try permissions("new.bin") == (try permissions("reference")))
    }

    @Test func aSymbolicLinkStaysOneAndItsTargetIsReplaced() throws {
        try makeOld("target.bin")
        try FileManager.default.createSymbolicLink(atPath: url("link.bin").path, withDestinationPath: "target.bin")
        let file = try OutputFile(url("link.bin"), mode: .replace)
        try file.write([9])
        try file.commit()
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: url("link.bin").path) == "target.bin")
        #expect(contents("target.bin") == [9])
        #expect(try names() == ["link.bin", "target.bin"])
    }

    /// `.create` puts a new file in place on commit, and never replaces one: a file (or a link
    /// to nowhere) that appeared at the destination while it was written stays as it was.
    @Test func createLinksANewFileInPlaceAndLeavesOneThatAppearedMeanwhile() throws {
        let file = try OutputFile(url("new.bin"), mode: .create)
        try file.write([1, 2])
        #expect(!OutputFile.isTaken(url("new.bin").path))
        try file.commit()
        #expect(contents("new.bin") == [1, 2])
        #expect(try names() == ["new.bin"])
        #expect(OutputFile.isTaken(url("new.bin").path))

        let late = try OutputFile(url("late.bin"), mode: .create)
        try late.write([3])
        try makeOld("late.bin")
        let error = #expect(throws: OutputFileError.self) { try late.commit() }
        #expect(error?.step == .exists)
        #expect(error?.description == "\(url("late.bin").path) exists and was left as it is")
        #expect(contents("late.bin") == Self.old)

        let dangling = try OutputFile(url("link.bin"), mode: .create)
        try FileManager.default.createSymbolicLink(atPath: url("link.bin").path, withDestinationPath: url("nowhere").path)
        #expect(OutputFile.isTaken(url("link.bin").path))
        #expect(throws: OutputFileError.self) { try dangling.commit() }
        #expect(try names() == ["new.bin", "late.bin", "link.bin"])
        #expect(!FileManager.default.fileExists(atPath: url("nowhere").path))
    }

    @Test func streamWritesANewFileInPlaceAsItGoes() throws {
        let file = try OutputFile(url("capture.bin"), mode: .stream)
        #expect(file.temporaryPath == nil)
        try file.write([1, 2])
        // On disk before any commit: what a crash would leave.
        #expect(contents("capture.bin") == [1, 2])
        #expect(try names() == ["capture.bin"])
        try file.commit()
        #expect(contents("capture.bin") == [1, 2])
    }

    @Test func streamOverAnExistingFileReplacesItOnlyAtTheEnd() throws {
        try makeOld("capture.bin")
        do {
            let file = try OutputFile(url("capture.bin"), mode: .stream)
            try file.write([1, 2])
            // The old file whole, the recording so far beside it (what a crash would leave).
            #expect(contents("capture.bin") == Self.old)
            let temporary = try #require(try temporaries().first)
            #expect(contents(temporary) == [1, 2])
            // Released without a commit (a command that stopped on an error): the recording is kept.
        }
        #expect(contents("capture.bin") == [1, 2])
        #expect(try names() == ["capture.bin"])
    }

    @Test func btsnoopFileWriterStreams() throws {
        let record = BtsnoopRecord(flags: 2, time: BtsnoopTime(unixMicroseconds: 1_800_000_000_000_000), data: [1, 2, 3])
        var expected = BtsnoopWriter(datalink: .linuxMonitor)
        expected.append(record)
        let bytes = expected.takeBytes()
        let writer = try BtsnoopFileWriter(url("new.btsnoop"))
        try writer.append(record)
        try writer.flush()
        #expect(contents("new.btsnoop") == bytes)
        try writer.close()

        try makeOld("old.btsnoop")
        let replacing = try BtsnoopFileWriter(url("old.btsnoop"))
        try replacing.append(record)
        try replacing.flush()
        #expect(contents("old.btsnoop") == Self.old)
        try replacing.close()
        #expect(contents("old.btsnoop") == bytes)
        #expect(try temporaries() == [])
    }

    @Test func failuresNameTheStepAndLeaveNoTemporary() throws {
        // No folder: nothing can be created.
        let missing = url("no/such/folder/out.bin")
        let create = #expect(throws: OutputFileError.self) { try OutputFile(missing, mode: .replace) }
        #expect(create == OutputFileError(.create, path: missing.path, errno: ENOENT))
        #expect(create?.description.hasPrefix("cannot create \(missing.path) (No such file or directory)") == true)
        #expect(throws: OutputFileError.self) { try OutputFile(missing, mode: .stream) }

        // A folder in the way: written, but the rename fails; the temporary goes, the folder stays.
        try FileManager.default.createDirectory(at: url("folder"), withIntermediateDirectories: false)
        try makeOld("folder/inside")
        let file = try OutputFile(url("folder"), mode: .replace)
        try file.write([1])
        let rename = #expect(throws: OutputFileError.self) { try file.commit() }
        #expect(rename?.step == .rename)
        #expect(rename?.description.hasPrefix("cannot replace \(url("folder").path)") == true)
        #expect(try names() == ["folder"])
        #expect(contents("folder/inside") == Self.old)
    }

    // MARK: destinations that are not regular files

    /// The file type at `name`, its links not followed (`S_IFCHR`, `S_IFIFO`, `S_IFLNK`, ...).
    func type(_ name: String) -> mode_t? {
        var status = stat()
        return lstat(url(name).path, &status) == 0 ? status.st_mode & S_IFMT : nil
    }

    /// Reads a FIFO to its end on a thread of its own.
    final class FIFOReader: Sendable {
        private let bytes = Mutex<[UInt8]>([])
        private let done = DispatchSemaphore(value: 0)

        init(_ path: String) {
            Thread.detachNewThread { [self] in
                let descriptor = open(path, O_RDONLY | O_CLOEXEC)
                var buffer = [UInt8](repeating: 0, count: 4096)
                while descriptor >= 0 {
                    let count = read(descriptor, &buffer, buffer.count)
                    guard count > 0 else { break }
                    bytes.withLock { $0 += buffer[..<count] }
                }
                if descriptor >= 0 { close(descriptor) }
                done.signal()
            }
        }

        /// What was read, once the writer closed the FIFO.
        func wait() -> [UInt8] {
            done.wait()
            return bytes.withLock { $0 }
        }
    }

    /// A FIFO (a terminal, /dev/stdout on a pipe) is written in place in every mode, never replaced
    /// by a file renamed over it.
    @Test(arguments: [OutputFile.Mode.replace, .create, .stream])
    func aFIFOIsWrittenInPlace(mode: OutputFile.Mode) throws {
        #expect(mkfifo(url("pipe").path, 0o600) == 0)
        let reader = FIFOReader(url("pipe").path)
        let file = try OutputFile(url("pipe"), mode: mode)
        #expect(file.temporaryPath == nil)
        try file.write([1, 2])
        try file.write([3])
        try file.commit()
        #expect(reader.wait() == [1, 2, 3])
        #expect(type("pipe") == S_IFIFO)
        #expect(try names() == ["pipe"])
    }

    /// Whether this process may make device nodes (root, or CAP_MKNOD): false only when mknod(2)
    /// answers EPERM.
    static let mayMakeDevices: Bool = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("outputfile-mknod-\(UUID().uuidString)").path
        defer { unlink(path) }
        return mknod(path, S_IFCHR | 0o666, OutputFileTests.nullDevice) == 0 || errno != EPERM
    }()

    /// Device 1:3, what /dev/null is on Linux (`makedev(1, 3)`).
    static let nullDevice = dev_t((1 << 8) | 3)

    /// A character device (the null device, as a node of this test's own) is written in place,
    /// also through a symbolic link to it: the node and the link stay what they are.
    @Test(.enabled(if: mayMakeDevices, "mknod(2) fails with EPERM: making a device node needs root or CAP_MKNOD"))
    func aCharacterDeviceIsWrittenInPlaceAlsoThroughALink() throws {
        #expect(mknod(url("null").path, S_IFCHR | 0o666, Self.nullDevice) == 0, "mknod: \(String(cString: strerror(errno)))")
        try FileManager.default.createSymbolicLink(atPath: url("link").path, withDestinationPath: "null")
        for (name, mode) in [("null", OutputFile.Mode.replace), ("null", .stream), ("link", .replace), ("link", .create)] {
            let file = try OutputFile(url(name), mode: mode)
            #expect(file.temporaryPath == nil)
            try file.write(Array(repeating: 7, count: 100_000))
            try file.commit()
            var status = stat()
            #expect(stat(url("null").path, &status) == 0 && status.st_mode & S_IFMT == S_IFCHR && status.st_rdev == Self.nullDevice)
            #expect(type("link") == S_IFLNK)
            #expect(try names() == ["null", "link"])
        }
        // Released without a commit, it is closed and left as it is.
        _ = try OutputFile(url("null"), mode: .replace)
        #expect(type("null") == S_IFCHR)
    }

    /// A link that leads to no file is refused, left as it is, in every mode.
    @Test(arguments: [OutputFile.Mode.replace, .create, .stream])
    func aLinkToNoFileIsRefusedNotReplaced(mode: OutputFile.Mode) throws {
        try FileManager.default.createSymbolicLink(atPath: url("link.bin").path, withDestinationPath: "nowhere/out.bin")
        let error = #expect(throws: OutputFileError.self) { try OutputFile(url("link.bin"), mode: mode) }
        #expect(error == OutputFileError(.link, path: url("link.bin").path, errno: ENOENT))
        #expect(error?.description.contains("is a symbolic link that leads to no file") == true)
        #expect(type("link.bin") == S_IFLNK)
        #expect(try names() == ["link.bin"])
    }

    @Test func temporaryNamesFitAFileNameWhateverTheDestination() {
        #expect(OutputFile.temporaryPrefix(for: "ride.fit") == ".ride.fit.sensorbridge-")
        let long = String(repeating: "é", count: 127)  // 254 bytes
        #expect(OutputFile.temporaryPrefix(for: long).utf8.count + 8 <= 255)
    }
}
