import Foundation
import SensorTestSupport
import Outputs

/// A small tmpfs of its own, mounted on a temporary folder, to fill up: a real full disk for the
/// tests. Needs root (or CAP_SYS_ADMIN); `unavailableReason` says why not where it cannot be had.
final class SmallFileSystem {
    let path: String
    private var filler: String { path + "/filler" }

    /// Why no small file system can be mounted here, or nil when one can.
    static let unavailableReason: String? = {
        do {
            try SmallFileSystem(megabytes: 1).remove()
            return nil
        } catch {
            return "no small file system to fill: \(error) (mounting a tmpfs needs root or CAP_SYS_ADMIN)"
        }
    }()

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(megabytes: Int) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-disk-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let (status, output) = Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0777", "tmpfs", path])
        guard status == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            throw Failure(description: "mount -t tmpfs failed: \(output)")
        }
    }

    /// Fills the file system to the last byte.
    func fill() {
        _ = Self.run("/bin/dd", ["if=/dev/zero", "of=\(filler)", "bs=4096"])
    }

    /// Frees what `fill` took.
    func free() { try? FileManager.default.removeItem(atPath: filler) }

    /// Unmounts it (everything on it is gone) and removes the folder.
    func remove() {
        _ = Self.run("/bin/umount", [path])
        try? FileManager.default.removeItem(atPath: path)
    }

    private static func run(_ executable: String, _ arguments: [String]) -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = ChildLaunch.pipe()
        process.standardOutput = output
        process.standardError = output
        do { try ChildLaunch.run(process) } catch { return (-1, "\(error)") }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
