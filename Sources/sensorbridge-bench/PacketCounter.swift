import DBus
import Foundation
import SensorTestSupport

/// The reader a relay writes to, for the relaying floor: `scripts/count-packets.py` (the same that
/// reads the relay's sockets as the mock's centrals) in a process of its own, on the other ends of
/// `count` `SOCK_SEQPACKET` socket pairs, reading as bluetoothd reads the sockets of an
/// `AcquireNotify` (`DBusConnection.packetSocketPair`, as the relay makes them). `sockets` are this
/// side's ends; `finish` closes them and returns how many packets the reader got.
final class PacketCounter {
    let sockets: [Int32]
    private let pid: pid_t
    /// What the reader prints ("ready", then its count), through a socket as its standard output.
    private let output: FileHandle

    static let script = MockBlueZ.script.deletingLastPathComponent().appendingPathComponent("count-packets.py").path

    init(count: Int) throws {
        // All close-on-exec from the start: only the child's ends, given as 1, 3, 4, ..., pass.
        var printed: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &printed) == 0 else {
            throw BlueZBenchmark.Failure(description: "socketpair: \(String(cString: strerror(errno)))")
        }
        var readers: [(ours: Int32, theirs: Int32)] = []
        defer { ([printed[1]] + readers.map(\.theirs)).forEach { close($0) } }
        do {
            for _ in 0..<count {
                guard let pair = DBusConnection.packetSocketPair() else {
                    throw BlueZBenchmark.Failure(description: "socketpair: \(String(cString: strerror(errno)))")
                }
                readers.append(pair)
            }
            pid = try ChildLaunch.spawn([MockBlueZ.python, Self.script] + readers.indices.map { String(3 + $0) }) { actions in
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                posix_spawn_file_actions_adddup2(&actions, printed[1], 1)
                for (index, pair) in readers.enumerated() { posix_spawn_file_actions_adddup2(&actions, pair.theirs, Int32(3 + index)) }
            }
        } catch {
            ([printed[0]] + readers.map(\.ours)).forEach { close($0) }
            throw BlueZBenchmark.Failure(description: "the packet counter did not start: \(error)")
        }
        sockets = readers.map(\.ours)
        output = FileHandle(fileDescriptor: printed[0], closeOnDealloc: true)
        guard readLine() == "ready" else {
            _ = finish()
            throw BlueZBenchmark.Failure(description: "the packet counter did not start reading")
        }
    }

    /// Closes this side's ends and returns the packets the reader got, once it has exited.
    func finish() -> Int? {
        sockets.forEach { close($0) }
        let count = readLine().flatMap { Int($0) }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return count
    }

    /// The next line the reader printed (nil at its end).
    private func readLine() -> String? {
        var line = Data()
        while true {
            let byte = output.readData(ofLength: 1)
            guard let first = byte.first else { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if first == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(first)
        }
    }
}
