import Foundation
import SensorBridge
import SensorCore
import SensorTestSupport
import Testing
import WorkoutStore
import Outputs

/// `convert --force` and `export --force` stopped mid-run (SIGKILL, SIGTERM) or failing leave
/// every existing output whole: the old file, or the complete new one, never a part. The built `sensorbridge`
/// runs as a child process, started and ended by the test. Serialized: each child is a few seconds
/// of CPU, and two at once on a busy machine only slow each other.
@Suite(.serialized) final class ReplacedOutputTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-replace-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// `OutputFile`'s temporaries in `directory` (`.NAME.sensorbridge-XXXXXXXX`).
    static func temporaries(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            $0.hasPrefix(".") && $0.contains(".sensorbridge-")
        }.sorted()
    }

    static func contents(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map(Array.init) }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    /// `count` random bytes: an existing output nothing could recreate by accident.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let words = (0..<(count + 7) / 8).map { _ in generator.next() as UInt64 }
        return words.withUnsafeBytes { Array($0.prefix(count)) }
    }

    /// The bundled one-hour ride `copies` times over, one after the other (about 1.3 MB a copy):
    /// its btsnoop capture takes a debug build seconds to write.
    func longTrace(copies: Int) throws -> String {
        let text = try String(contentsOf: BlueZCommandTests.ride, encoding: .utf8)
        var lines = text.split(separator: "\n").map(String.init)
        let header = lines.removeFirst()
        let records = try lines.map { try JSONValue(parsing: $0) }.filter { $0["event"]?.stringValue != "end" }
        let span = (records.compactMap { $0["t"]?.doubleValue }.max() ?? 0) + 1
        var out = [header]
        for copy in 0..<copies {
            for record in records {
                guard case .object(var object) = record, let t = record["t"]?.doubleValue else { continue }
                object["t"] = .number(((t + Double(copy) * span) * 1000).rounded() / 1000)
                out.append(JSONValue.object(object).serialized)
            }
        }
        let url = folder.appendingPathComponent("long.jsonl")
        try (out.joined(separator: "\n") + "\n").write(to: url, atomically: false, encoding: .utf8)
        return url.path
    }

    /// Waits (polling, up to `timeout`) until `condition` holds or the child has exited; whether it held.
    static func wait(for child: ChildProcess, timeout: Duration, until condition: () throws -> Bool) rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            if child.waitForExit(timeout: .zero) { return false }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return false
    }

    /// Whether this process may make device nodes (root, or CAP_MKNOD): false only when mknod(2)
    /// answers EPERM.
    static let mayMakeDevices: Bool = {
        let node = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-mknod-\(UUID().uuidString)").path
        defer { unlink(node) }
        return mknod(node, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0 || errno != EPERM
    }()

    /// `export -o NODE --force` and `convert IN NODE --force` on a character device (the null
    /// device, 1:3, as a node of the test's own, never the real /dev/null), named or through a
    /// symbolic link: written in place, the node left a device (renamed over, as root, it became a
    /// regular file).
    @Test(.enabled(if: mayMakeDevices, "mknod(2) fails with EPERM: making a device node needs root or CAP_MKNOD"))
    func anOutputThatIsADeviceIsWrittenInPlace() throws {
        let node = path("null")
        #expect(mknod(node, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0, "mknod: \(String(cString: strerror(errno)))")
        try FileManager.default.createSymbolicLink(atPath: path("link"), withDestinationPath: "null")
        let store = path("workouts.sqlite")
        let ride = BlueZCommandTests.ride.path
        #expect(runCLI(["replay", ride, "--save", "--store", store]).status == .success)
        for output in [node, path("link")] {
            for words in [
                ["export", "latest", "--format", "fit", "-o", output, "--force", "--store", store], ["convert", ride, output, "--force"],
            ] {
                let run = runCLI(words)
                #expect(run.status == .success, "\(words): \(run.errors)")
                var status = stat()
                #expect(stat(node, &status) == 0 && status.st_mode & S_IFMT == S_IFCHR, "\(words)")
                #expect(lstat(path("link"), &status) == 0 && status.st_mode & S_IFMT == S_IFLNK, "\(words)")
                #expect(try Self.temporaries(in: folder.path).isEmpty)
            }
        }
    }

    @Test(.timeLimit(.minutes(10)), arguments: [SIGKILL, SIGTERM])
    func convertStoppedMidRunLeavesTheOldOutputWhole(signal: Int32) throws {
        let trace = try longTrace(copies: 6)
        let output = path("ride.btsnoop")
        let old = Self.randomBytes(8 << 20)
        try Data(old).write(to: URL(fileURLWithPath: output))

        let child = try ChildProcess(try CrashRecoveryTests.executable().path, ["convert", trace, output, "--force"], environment: [:])
        defer { child.stop() }
        // Mid-run: the first megabyte of the new capture is in its temporary.
        let writing = try Self.wait(for: child, timeout: .seconds(120)) {
            try Self.temporaries(in: folder.path).contains { Self.size(path($0)) > 0 }
        }
        try #require(writing, "convert did not start writing: \(child.output)")
        #expect(Self.contents(output) == old)
        child.send(signal)
        try #require(child.waitForExit(timeout: .seconds(30)))
        #expect(child.terminatingSignal == signal, "status \(child.terminationStatus): \(child.output)")

        // The old file whole, or (had it finished in between) the complete new one.
        let left = Self.contents(output)
        if left != old {
            #expect(runCLI(["convert", trace, path("reference.btsnoop")]).status == .success)
            #expect(left == Self.contents(path("reference.btsnoop")), "a partial capture replaced the old one")
        }
        let temporaries = try Self.temporaries(in: folder.path)
        if signal == SIGKILL {
            // Nothing can remove it: the temporary, beside the untouched file, is all that is left.
            #expect(temporaries.count <= 1)
            for name in temporaries { try FileManager.default.removeItem(atPath: path(name)) }
        } else {
            #expect(temporaries == [], "SIGTERM removes the temporary")
        }

        // A run that finishes replaces it, and leaves nothing else.
        let run = runCLI(["convert", trace, output, "--force"])
        #expect(run.status == .success, "\(run.errors)")
        #expect(Self.contents(output) != old && (Self.contents(output)?.count ?? 0) > 1 << 20)
        #expect(try Self.temporaries(in: folder.path) == [])
    }

    @Test(.timeLimit(.minutes(10))) func aConversionThatFailsLeavesTheOldOutputAndNoTemporary() throws {
        let trace = try longTrace(copies: 2)
        let capture = path("ride.btsnoop")
        #expect(runCLI(["convert", trace, capture]).status == .success)
        // A record header whose length no HCI packet has, after megabytes of good records.
        var broken = try #require(Self.contents(capture))
        broken += [0x7F, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 16)
        try Data(broken).write(to: URL(fileURLWithPath: path("broken.btsnoop")))
        let old = Self.randomBytes(100_000)
        try Data(old).write(to: URL(fileURLWithPath: path("ride.jsonl")))
        let failed = runCLI(["convert", path("broken.btsnoop"), path("ride.jsonl"), "--force"])
        #expect(failed.status == .failure)
        #expect(failed.errors.contains("record"), "\(failed.errors)")
        #expect(Self.contents(path("ride.jsonl")) == old)
        #expect(try Self.temporaries(in: folder.path) == [])

        // A folder in the way of the output: written in full, then it cannot be replaced.
        try FileManager.default.createDirectory(atPath: path("folder.btsnoop/keep"), withIntermediateDirectories: true)
        let blocked = runCLI(["convert", trace, path("folder.btsnoop"), "--force"])
        #expect(blocked.status == .failure)
        #expect(blocked.errors.contains("cannot replace \(path("folder.btsnoop"))"), "\(blocked.errors)")
        #expect(FileManager.default.fileExists(atPath: path("folder.btsnoop/keep")))
        #expect(try Self.temporaries(in: folder.path) == [])
    }

    /// A store with the bundled ride saved `copies` times, and the export of all of them as TCX
    /// into `reference/` (file name -> bytes).
    func storeAndReference(copies: Int) throws -> (store: String, reference: [String: [UInt8]]) {
        let store = path("workouts.sqlite")
        let environment = ["TZ": "UTC"]
        #expect(runCLI(["profile", "set", "--store", store] + ReplayCommandTests.profile).status == .success)
        let ride = ReplayCommandTests.captures.appendingPathComponent("ride-60min-hr-power.jsonl").path
        let replay = runCLI(["replay", ride, "--save", "--store", store], environment: environment)
        try #require(replay.status == .success, "\(replay.errors)")
        let workouts = try WorkoutStore(path: store)
        let workout = try workouts.workout(WorkoutID(1))
        for _ in 1..<copies { try workouts.save(workout) }
        let reference = path("reference")
        let export = runCLI(["export", "--all", "--format", "tcx", "-o", reference, "--store", store], environment: environment)
        try #require(export.status == .success, "\(export.errors)")
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: reference) {
            files[name] = Self.contents(reference + "/" + name)
        }
        try #require(files.count == copies)
        return (store, files)
    }

    /// Export encodes a file in memory and then writes it at once, so the signal nearly always
    /// arrives between files, with no temporary in flight; what SIGTERM does to one is the
    /// `convert` test's to check.
    @Test(.timeLimit(.minutes(10)), arguments: [SIGKILL, SIGTERM])
    func exportStoppedMidRunLeavesEveryFileWhole(signal: Int32) throws {
        let (store, reference) = try storeAndReference(copies: 8)
        let output = path("exports")
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false)
        var old: [String: [UInt8]] = [:]
        var inodes: [String: Int] = [:]
        for name in reference.keys {
            old[name] = Self.randomBytes(200_000)
            try Data(old[name]!).write(to: URL(fileURLWithPath: output + "/" + name))
            inodes[name] = try FileManager.default.attributesOfItem(atPath: output + "/" + name)[.systemFileNumber] as? Int
        }

        let child = try ChildProcess(
            try CrashRecoveryTests.executable().path,
            ["export", "--all", "--format", "tcx", "-o", output, "--force", "--store", store],
            environment: ["TZ": "UTC"])
        defer { child.stop() }
        // Mid-run: the first file has been replaced (a rename: a new inode).
        let replacing = try Self.wait(for: child, timeout: .seconds(120)) {
            try inodes.contains { name, inode in
                try FileManager.default.attributesOfItem(atPath: output + "/" + name)[.systemFileNumber] as? Int != inode
            }
        }
        try #require(replacing, "export did not start replacing files: \(child.output)")
        child.send(signal)
        try #require(child.waitForExit(timeout: .seconds(30)))
        #expect(child.terminatingSignal == signal, "status \(child.terminationStatus): \(child.output)")

        // Every file is its old self or the complete export; at least one was replaced.
        var replaced = 0
        for (name, bytes) in reference {
            let left = Self.contents(output + "/" + name)
            #expect(left == old[name] || left == bytes, "\(name) is neither the old file nor the export")
            if left == bytes { replaced += 1 }
        }
        #expect(replaced >= 1)
        let temporaries = try Self.temporaries(in: output)
        #expect(temporaries.count <= (signal == SIGKILL ? 1 : 0), "\(temporaries)")
        for name in temporaries { try FileManager.default.removeItem(atPath: output + "/" + name) }

        // A run that finishes replaces them all, and leaves nothing else.
        let run = runCLI(
            ["export", "--all", "--format", "tcx", "-o", output, "--force", "--store", store], environment: ["TZ": "UTC"])
        #expect(run.status == .success, "\(run.errors)")
        for (name, bytes) in reference { #expect(Self.contents(output + "/" + name) == bytes, "\(name)") }
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: output)) == Set(reference.keys))
    }

    @Test(.timeLimit(.minutes(10))) func anExportThatFailsLeavesNoTemporary() throws {
        let (store, reference) = try storeAndReference(copies: 2)
        let output = path("exports")
        // A folder where the first file goes: it cannot be replaced.
        let first = try #require(reference.keys.sorted().first)
        try FileManager.default.createDirectory(atPath: output + "/" + first + "/keep", withIntermediateDirectories: true)
        let run = runCLI(
            ["export", "--all", "--format", "tcx", "-o", output, "--force", "--store", store], environment: ["TZ": "UTC"])
        #expect(run.status == .failure)
        #expect(run.errors.contains("cannot replace \(output)/\(first)"), "\(run.errors)")
        #expect(FileManager.default.fileExists(atPath: output + "/" + first + "/keep"))
        #expect(try Self.temporaries(in: output) == [])
    }
}
