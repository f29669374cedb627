import Outputs

/// Exit statuses of `sensorbridge`, documented in the README.
public enum ExitStatus: Int32, Sendable {
    /// Success.
    case success = 0
    /// The work failed: a payload did not decode, a file could not be read.
    case failure = 1
    /// The command line was wrong; the message says what to change.
    case usage = 2
}

/// The `sensorbridge` command line: one binary, one subcommand per job.
public enum SensorBridgeCLI {
    /// A subcommand: its name, one line for the overview, how to run it, and its own subcommands
    /// (`workouts list`), which completion and the manual page go through.
    struct Subcommand: Sendable {
        let name: String
        let summary: String
        let subcommands: [String]
        let run: @Sendable ([String], CommandContext) throws -> ExitStatus

        init(
            name: String, summary: String, subcommands: [String] = [],
            run: @escaping @Sendable ([String], CommandContext) throws -> ExitStatus
        ) {
            self.name = name
            self.summary = summary
            self.subcommands = subcommands
            self.run = run
        }
    }

    static let subcommands: [Subcommand] = [
        Subcommand(name: "scan", summary: "find heart-rate, power and cadence sensors in range", run: ScanCommand.run),
        Subcommand(name: "pair", summary: "pair with a sensor and trust it", run: PairCommand.run),
        Subcommand(name: "record", summary: "record a zoned workout from live sensors", run: RecordCommand.run),
        Subcommand(name: "serve", summary: "record every workout headless, as a service", run: ServeCommand.run),
        Subcommand(name: "relay", summary: "offer the sensors again to other apps, as a Bluetooth LE sensor", run: RelayCommand.run),
        Subcommand(name: "decode", summary: "decode GATT notification payloads to JSON", run: DecodeCommand.run),
        Subcommand(name: "replay", summary: "replay a trace or btsnoop capture into a zoned workout", run: ReplayCommand.run),
        Subcommand(name: "convert", summary: "convert between btsnoop captures and JSONL traces", run: ConvertCommand.run),
        Subcommand(name: "capture", summary: "record live HCI traffic to a btsnoop file, as btmon -w", run: CaptureCommand.run),
        ZonesCommand.subcommand,
        Subcommand(
            name: "workouts", summary: "stored workouts: list, show, delete, zones, recover",
            subcommands: WorkoutsCommand.subcommands, run: WorkoutsCommand.run),
        Subcommand(name: "export", summary: "write stored workouts as FIT, TCX, CSV or SVG files", run: ExportCommand.run),
        Subcommand(name: "plan", summary: "a structured workout (FIT, .zwo or JSON) shown step by step", run: PlanCommand.run),
        Subcommand(name: "sync", summary: "copy workouts to or from another store; its people both ways", run: SyncCommand.run),
        Subcommand(
            name: "profile", summary: "your profile for the system zones: set, show, reset",
            subcommands: ProfileCommand.subcommands, run: ProfileCommand.run),
        Subcommand(
            name: "athletes", summary: "several people on one box, each with their zones and sensors",
            subcommands: AthletesCommand.subcommands, run: AthletesCommand.run),
        Subcommand(name: "web", summary: "the stored workouts as a web page and an HTTP API", run: WebCommand.run),
        Subcommand(name: "completion", summary: "a completion script for bash, zsh or fish", run: CompletionCommand.run),
        Subcommand(name: "man", summary: "the manual page, sensorbridge.1, in roff", run: ManualPage.run),
    ]

    static let overview = """
        sensorbridge: Bluetooth LE heart-rate and power sensors to zoned workouts on Linux.

        Usage: sensorbridge <command> [options]

        Commands:
        \(subcommands.map { "  " + $0.name.padding(toLength: 12, withPad: " ", startingAt: 0) + $0.summary }
            .joined(separator: "\n"))

        Run 'sensorbridge help <command>' (or 'sensorbridge <command> --help') for a command's options
        and examples, 'sensorbridge --version' for the version.
        """

    /// Every command's name, in the overview's order.
    static var subcommandNames: [String] { subcommands.map(\.name) }

    /// The version `--version` prints.
    static let version = "0.6.0"

    /// Runs one invocation; `arguments` excludes the program name. Never calls `exit`.
    public static func run(_ arguments: [String], context: CommandContext) -> ExitStatus {
        defer {
            context.output.flush()
            context.errors.flush()
        }
        guard let name = arguments.first else {
            context.errors.line(overview)
            return .usage
        }
        if name == "--version" || name == "version" {
            context.output.line("sensorbridge \(version)")
            return .success
        }
        // `help COMMAND` is `COMMAND --help`.
        if name == "help", let command = arguments.dropFirst().first {
            return run([command, "--help"], context: context)
        }
        if name == "--help" || name == "-h" || name == "help" {
            context.output.line(overview)
            return .success
        }
        // A message may quote what came from outside (a file's line, a flag's value): each of its
        // lines is shown inert, so nothing in it acts on the terminal.
        guard let subcommand = subcommands.first(where: { $0.name == name }) else {
            context.errors.line(
                ("sensorbridge: unknown command '\(name)'\(Suggestion.phrase(for: name, among: subcommands.map(\.name))); "
                    + "run 'sensorbridge --help' for the list").inertLines)
            return .usage
        }
        do {
            return try subcommand.run(Array(arguments.dropFirst()), context)
        } catch let error as UsageError {
            context.errors.line("sensorbridge \(name): \(error.message)".inertLines)
            return .usage
        } catch let error as RequestError {
            context.errors.line("sensorbridge \(name): \(error)".inertLines)
            return .usage
        } catch {
            context.errors.line("sensorbridge \(name): \(error)".inertLines)
            return .failure
        }
    }
}
