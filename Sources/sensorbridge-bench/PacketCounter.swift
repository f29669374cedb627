import Foundation
import SensorTestSupport

/// The reader a relay writes to, for the relaying floor: `scripts/count-packets.py` (the same that
/// reads the relay's sockets as the mock's centrals) in a process of its own, on the other ends of
/// `count` `SOCK_SEQPACKET` socket pairs, reading as bluetoothd reads the sockets of an
/// `AcquireNotify`. `sockets` are this side's ends, non-blocking; `finish` closes them and returns
/// how many packets the reader got.
final class PacketCounter {
    let sockets: [Int32]
    private let pid: pid_t
    /// What the reader prints ("ready", then its count), through a socket as its standard output.
    private let output: FileHandle

    static let script = MockBlueZ.script.deletingLastPathComponent().appendingPathComponent("count-packets.py").path

    init(count: Int) throws {
        // All close-on-exec from the start: only the child's ends, given as 1, 3, 4, ..., pass.
        func socketPair(_ type: __socket_type) throws -> (ours: Int32, theirs: Int32) {
            var pair: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
                throw BlueZBenchmark.Failure(description: "socketpair: \(String(cString: strerror(errno)))")
            }
            return (pair[0], pair[1])
        }
        var pairs: [(ours: Int32, theirs: Int32)] = []
        defer { pairs.forEach { close($0.theirs) } }
        do {
            for _ in 0..<count + 1 { pairs.append(try socketPair(pairs.isEmpty ? SOCK_STREAM : SOCK_SEQPACKET)) }
            let readers = pairs.dropFirst()
            pid = try ChildLaunch.spawn([MockBlueZ.python, Self.script] + (0..<count).map { String(3 + $0) }) { actions in
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                posix_spawn_file_actions_adddup2(&actions, pairs[0].theirs, 1)
                for (index, pair) in readers.enumerated() { posix_spawn_file_actions_adddup2(&actions, pair.theirs, Int32(3 + index)) }
            }
        } catch {
            pairs.forEach { close($0.ours) }
            throw BlueZBenchmark.Failure(description: "the packet counter did not start: \(error)")
        }
        sockets = pairs.dropFirst().map(\.ours)
        for fd in sockets { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        output = FileHandle(fileDescriptor: pairs[0].ours, closeOnDealloc: true)
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
