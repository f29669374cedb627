import Captures
import Foundation
import Outputs

/// `sensorbridge convert IN OUT`: a btsnoop capture to a JSONL trace, or a JSONL trace to a
/// btsnoop capture.
enum ConvertCommand {
    static let help = """
        Usage: sensorbridge convert IN OUT [--force] [--handle H=UUID,...]

        Converts between the two capture formats; IN's kind is recognised by its first bytes and
        OUT is the other kind. OUT must not exist unless --force is given; then it is replaced once
        the conversion is complete. Until then it is written to a temporary file beside it, removed
        if the conversion fails or is interrupted.
          btsnoop -> JSONL  the notifications the sensors sent, with their device keys ('power',
                            'hr', 'csc' by service, else the address), disconnections and
                            reconnections as events; notifications on handles no discovery named
                            are left out (give --handle)
          JSONL -> btsnoop  datalink 2001 as 'btmon -w' writes it: a connection per device with
                            MTU exchange, discovery and CCCD writes, each notification on its
                            characteristic's handle, a disconnection per dropout; the header and
                            the events travel as 'sensorbridge' log notes, so converting back gives
                            the same trace (times to the microsecond)

        Options:
          --force                    replace OUT if it exists
        \(HandleMapArgument.help)

        Examples:
          sensorbridge convert btsnoop_hci.log ride.jsonl
          sensorbridge convert Captures/ride-60min-hr-power.jsonl ride.btsnoop
          wireshark ride.btsnoop
        """

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(
            words, command: "convert", options: [HandleMapArgument.option], flags: ["force"])
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 2)
        guard arguments.positionals.count == 2 else {
            throw UsageError(
                "give the file to read and the file to write, for example: sensorbridge convert btsnoop_hci.log ride.jsonl"
            )
        }
        let (input, output) = (
            URL(fileURLWithPath: arguments.positionals[0]), URL(fileURLWithPath: arguments.positionals[1])
        )
        guard input.standardizedFileURL != output.standardizedFileURL else {
            throw UsageError("IN and OUT are the same file; write to another one")
        }
        let handles = try HandleMapArgument.parse(arguments)
        let replacing = arguments.has("force")
        // Ctrl-C, SIGTERM and SIGHUP leave no temporary behind.
        let signals = OutputFileSignals()
        defer { signals.cancel() }
        let summary: CaptureConversion.Summary
        let kinds: String
        // A file that cannot be read is reported by the command line, as every failure (status 1).
        if try CaptureFile.kind(of: input) == .btsnoop {
            guard !["btsnoop", "log", "cfa"].contains(output.pathExtension.lowercased()) else {
                throw UsageError(
                    "\(input.lastPathComponent) is a btsnoop capture, so OUT is a JSONL trace; name it .jsonl")
            }
            kinds = "btsnoop capture -> JSONL trace"
            guard replacing || !refused(output, context) else { return .failure }
            do {
                summary = try CaptureConversion.trace(
                    fromBtsnoop: input, to: output, assumedHandles: handles, replacing: replacing)
            } catch {
                context.errors.line("sensorbridge convert: \(error)")
                return .failure
            }
            if let skipped = summary.statistics.summary {
                context.errors.line("sensorbridge convert: \(input.path): skipped \(skipped)")
            }
        } else {
            guard handles.isEmpty else {
                throw UsageError("--handle maps the handles of a btsnoop capture; IN is a JSONL trace")
            }
            guard output.pathExtension.lowercased() != "jsonl" else {
                throw UsageError(
                    "\(input.lastPathComponent) is a JSONL trace, so OUT is a btsnoop capture; name it .btsnoop")
            }
            kinds = "JSONL trace -> btsnoop capture"
            guard replacing || !refused(output, context) else { return .failure }
            do {
                summary = try CaptureConversion.btsnoop(fromTrace: input, to: output, replacing: replacing)
            } catch {
                context.errors.line("sensorbridge convert: \(input.path): \(error)")
                return .failure
            }
            if let cut = summary.skippedLastLine { context.errors.line("sensorbridge convert: \(input.path): \(cut)") }
        }
        context.output.line(
            "\(output.path): \(kinds), \(summary.notifications) notifications, \(summary.events) events")
        return .success
    }

    /// Without --force, an OUT that exists is refused, saying so on `context.errors`; whether it was.
    private static func refused(_ output: URL, _ context: CommandContext) -> Bool {
        guard OutputFile.isTaken(output.path) else { return false }
        context.errors.line(
            "sensorbridge convert: \(output.path) exists; give --force to replace it, or another name for OUT")
        return true
    }
}
