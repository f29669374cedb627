import Captures
import Dispatch
import Foundation
import Outputs
import Synchronization

/// `sensorbridge capture --out FILE`: live HCI traffic from the kernel's monitor channel to a
/// btsnoop file, as `btmon -w` records it.
enum CaptureCommand {
    static let help = """
        Usage: sensorbridge capture --out FILE.btsnoop [--adapter hci0]

        Records every HCI packet of every Bluetooth controller (or of --adapter only) from the
        kernel's HCI monitor channel, with the kernel's timestamps, to a btsnoop file (datalink
        2001, as 'btmon -w' writes) until Ctrl-C or SIGTERM. Read it back with
        'sensorbridge decode --capture FILE', 'sensorbridge replay FILE', btmon -r or Wireshark.

        The monitor channel needs the CAP_NET_RAW capability: run as root, or grant it once with
        sudo setcap cap_net_raw+ep "$(command -v sensorbridge)".

        Options:
          --out FILE        the capture to write (replaced if it exists, once the capture ends)
          --adapter hciN    only this controller's packets

        Example:
          sudo sensorbridge capture --out ride.btsnoop --adapter hci0
        """

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(words, command: "capture", options: ["out", "adapter"])
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 0)
        guard let path = arguments["out"] else {
            throw UsageError("give the file to write with --out, for example: sensorbridge capture --out ride.btsnoop")
        }
        let adapter = try arguments["adapter"].map { text throws(UsageError) -> UInt16 in
            guard text.hasPrefix("hci"), let index = UInt16(text.dropFirst(3)) else {
                throw UsageError(
                    "--adapter \(text) is not an adapter name; give hci0, hci1, ... (ls /sys/class/bluetooth)")
            }
            return index
        }

        let socket: HCIMonitorSocket
        do {
            socket = try HCIMonitorSocket()
        } catch {
            context.errors.line("sensorbridge capture: \(error)")
            return .failure
        }
        if let adapter, !FileManager.default.fileExists(atPath: "/sys/class/bluetooth/hci\(adapter)") {
            context.errors.line(
                "sensorbridge capture: there is no adapter hci\(adapter); the adapters are in /sys/class/bluetooth (or run 'bluetoothctl list')"
            )
            return .failure
        }
        let file: BtsnoopFileWriter
        do {
            file = try BtsnoopFileWriter(URL(fileURLWithPath: path))
        } catch {
            context.errors.line("sensorbridge capture: \(error)")
            return .failure
        }

        let stop = StopSignals()
        defer { stop.restore() }
        var packets = 0
        var lastProgress = ContinuousClock.now
        do {
            while !stop.requested {
                if let record = try socket.receive(timeout: .milliseconds(250)) {
                    let index = UInt16(truncatingIfNeeded: record.flags >> 16)
                    // Index 0xFFFF (HCI_DEV_NONE) carries notes that belong to no controller.
                    if let adapter, index != adapter, index != 0xFFFF { continue }
                    try file.append(record)
                    packets += 1
                }
                if ContinuousClock.now - lastProgress >= .seconds(1) {
                    try file.flush()
                    lastProgress = ContinuousClock.now
                    if context.outputIsTerminal {
                        context.errors.write("\rcapturing to \(path): \(packets) packets (Ctrl-C stops)")
                        context.errors.flush()
                    }
                }
            }
            try file.close()
        } catch {
            // What was captured before the error is kept (and replaces an existing file).
            try? file.close()
            context.errors.line("\nsensorbridge capture: \(error)")
            return .failure
        }
        context.errors.line(
            "\(context.outputIsTerminal ? "\n" : "")sensorbridge capture: \(packets) packets written to \(path)")
        return .success
    }
}

/// Turns SIGINT and SIGTERM into a flag the capture loop checks, instead of ending the process
/// with the last packets unwritten; `restore()` gives the signals back their default action.
final class StopSignals {
    /// Set from the signal sources' queue, read by the capture loop.
    private final class Flag: Sendable {
        let raised = Atomic<Bool>(false)
    }

    private let flag = Flag()
    private let handlers: SignalHandlers

    init() {
        let flag = flag
        handlers = SignalHandlers([SIGINT, SIGTERM].map { ($0, { flag.raised.store(true, ordering: .relaxed) }) })
    }

    var requested: Bool { flag.raised.load(ordering: .relaxed) }

    func restore() { handlers.cancel() }
}
