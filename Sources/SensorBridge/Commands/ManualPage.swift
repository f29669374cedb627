/// `sensorbridge man`: the manual page, `sensorbridge.1`, in roff, made from the overview and every
/// command's help (`CommandReference`), so it says what `--help` says.
enum ManualPage {
    static let help = """
        Usage: sensorbridge man

        Prints the manual page (roff, section 1): the overview, every command's help, the exit
        statuses, the environment and the files. 'scripts/install-service' installs it; to read it
        without installing:

        Examples:
          sensorbridge man | man -l -
          sensorbridge man > ~/.local/share/man/man1/sensorbridge.1
        """

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(words, command: "man")
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 0)
        context.output.write(page(CommandReference.make()))
        return .success
    }

    /// The whole page.
    static func page(_ reference: CommandReference) -> String {
        var page = [
            ".TH SENSORBRIDGE 1 \"\" \"sensorbridge \(SensorBridgeCLI.version)\" \"User Commands\"",
            ".SH NAME",
            "sensorbridge \\- Bluetooth LE heart\\-rate and power sensors to zoned workouts on Linux",
            ".SH SYNOPSIS",
            ".B sensorbridge",
            ".I command",
            ".RI [ options ]",
            ".br",
            ".B sensorbridge help",
            ".I command",
            ".br",
            ".B sensorbridge \\-\\-version",
            ".SH DESCRIPTION",
            text(
                "sensorbridge talks to Bluetooth LE heart-rate straps and cycling power meters through BlueZ, "
                    + "decodes their GATT notifications and turns them into zoned workouts (the HealthKit "
                    + "workout-zone model), kept in a SQLite workout store. It replays recorded traces and btsnoop "
                    + "captures through the same pipeline, and exports workouts as FIT, TCX, CSV or SVG."),
            ".PP",
            text(
                "Every command has --help, prints text for people and --json (where it takes it) for "
                    + "programs, and says on standard error what went wrong and what to do."),
            ".SH COMMANDS",
        ]
        // Where each help was printed: `profile set --help` prints what `profile --help` did.
        var printed: [String: String] = [:]
        for entry in reference.entries {
            let title = "sensorbridge " + entry.words.joined(separator: " ")
            page.append(".SS \"\(escape(title))\"")
            if entry.words.count == 1 { page.append(text(entry.summary)) }
            if let first = printed[entry.help] {
                page.append(text("See \"\(first)\" above."))
                continue
            }
            printed[entry.help] = title
            page.append(contentsOf: [".PP", ".nf", ".RS 2"])
            page.append(contentsOf: entry.help.split(separator: "\n", omittingEmptySubsequences: false).map { escape(String($0)) })
            if page.last == "" { page.removeLast() }
            page.append(contentsOf: [".RE", ".fi"])
        }
        page.append(".SH \"EXIT STATUS\"")
        for (status, meaning) in exitStatuses {
            page.append(contentsOf: [".TP", ".B \(status.rawValue)", text(meaning)])
        }
        page.append(".SH ENVIRONMENT")
        for (name, meaning) in environment {
            page.append(contentsOf: [".TP", ".B \(name)", text(meaning)])
        }
        page.append(".SH FILES")
        for (path, meaning) in files {
            page.append(contentsOf: [".TP", ".I \(escape(path))", text(meaning)])
        }
        page.append(contentsOf: [
            ".SH \"SEE ALSO\"",
            ".BR btmon (1),",
            ".BR bluetoothctl (1),",
            ".BR sqlite3 (1)",
        ])
        return page.joined(separator: "\n") + "\n"
    }

    static let exitStatuses: [(ExitStatus, String)] = [
        (.success, "Success: the work was done."),
        (
            .failure,
            "The work failed: a trace or capture that cannot be read, a payload that does not decode, a "
                + "store that cannot be used, no such workout, a file that cannot be written, BlueZ not running, "
                + "no adapter, a sensor not found; or a question to confirm answered no."
        ),
        (.usage, "The command line was wrong (unknown option, missing argument, bad number, date or zones)."),
    ]

    static let environment: [(String, String)] = [
        ("SENSORBRIDGE_STORE", "The workout store, when --store does not name one."),
        ("XDG_DATA_HOME", "The store is $XDG_DATA_HOME/sensorbridge/workouts.sqlite when neither names one."),
        ("HOME", "Else the store is ~/.local/share/sensorbridge/workouts.sqlite."),
        ("TZ", "The time zone of dates on the command line and in text output (Europe/Paris, UTC)."),
        ("COLUMNS, LINES, TERM", "The size and kind of terminal the record dashboard draws on."),
    ]

    static let files: [(String, String)] = [
        ("$XDG_DATA_HOME/sensorbridge/workouts.sqlite", "The workout store (SQLite, WAL mode)."),
        ("~/.local/share/sensorbridge/workouts.sqlite", "The workout store when XDG_DATA_HOME is not set."),
        ("/var/lib/sensorbridge/workouts.sqlite", "The store of the system service (sensorbridge serve)."),
        ("STORE-recording-ID", "The lock a running recording holds on workout ID."),
    ]

    /// Filled text: one line, escaped, never a request.
    static func text(_ words: String) -> String { escape(words) }

    /// `line` as roff text: backslashes as `\e`, hyphens as `\-` (options, paths and ranges are
    /// typed with ASCII hyphens), anything not ASCII as `\[uXXXX]`, and `\&` before a `.` or `'`
    /// that starts the line, which would make it a request.
    static func escape(_ line: String) -> String {
        var escaped = ""
        for scalar in line.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\e"
            case "-": escaped += "\\-"
            case _ where scalar.isASCII: escaped.unicodeScalars.append(scalar)
            default:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escaped += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            }
        }
        if escaped.hasPrefix(".") || escaped.hasPrefix("'") { escaped = "\\&" + escaped }
        return escaped
    }
}
