import Foundation
@testable import SensorBridge
import SensorCore
import SensorTestSupport
import Testing
import Outputs

/// The command line itself (issue 17): "did you mean" for options, negative numbers as values,
/// completion scripts and the manual page from the commands' own declarations, --json everywhere it
/// is taken, questions before deleting, and file errors in plain words. Commands run in-process
/// against stores in a temporary folder; the shells, groff and man run as child processes.
@Suite final class CommandLineTests {
    let folder: URL
    let store: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-cl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = folder.appendingPathComponent("workouts.sqlite").path
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// `sensorbridge ARGUMENTS --store STORE` in UTC, which must succeed.
    @discardableResult
    func run(_ arguments: [String], input: String = "", terminal: Bool = false) -> (output: String, errors: String) {
        let run = runCLI(arguments + ["--store", store], input: input, environment: ["TZ": "UTC"], inputIsTerminal: terminal)
        #expect(run.status == .success, "\(arguments): \(run.errors)")
        return (run.output, run.errors)
    }

    func capture(_ name: String) -> String { ReplayCommandTests.captures.appendingPathComponent(name).path }

    /// A program's status, standard output and standard error (files, so that neither pipe fills).
    static func child(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws
        -> (status: Int32, output: String, errors: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("sb-child-\(UUID().uuidString)")
        let (out, err) = (base.appendingPathExtension("out"), base.appendingPathExtension("err"))
        for file in [out, err] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
        defer { for file in [out, err] { try? FileManager.default.removeItem(at: file) } }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try ChildLaunch.run(process)
        process.waitUntilExit()
        return (
            process.terminationStatus, try String(contentsOf: out, encoding: .utf8), try String(contentsOf: err, encoding: .utf8)
        )
    }

    static func installed(_ program: String) -> String? {
        ["/usr/bin/", "/bin/", "/usr/local/bin/"].map { $0 + program }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    // MARK: 1. did you mean, for options

    @Test func misspeltOptionsAreAnsweredWithTheClosestForEveryCommand() throws {
        for (words, message) in [
            (["record", "--trce", "ride.jsonl"], "unknown option '--trce' for 'record' (did you mean '--trace'?)"),
            (["workouts", "list", "--actvity", "cycling"], "unknown option '--actvity' for 'workouts list' (did you mean '--activity'?)"),
            (["export", "1", "--fromat", "fit"], "unknown option '--fromat' for 'export' (did you mean '--format'?)"),
            (["profile", "set", "--rseting-hr", "50"], "unknown option '--rseting-hr' for 'profile set' (did you mean '--resting-hr'?)"),
            (["replay", "ride.jsonl", "-save"], "unknown option '-save' for 'replay' (did you mean '--save'?)"),
            (["workouts", "delete", "1", "--yse"], "unknown option '--yse' for 'workouts delete' (did you mean '--yes'?)"),
        ] {
            let run = runCLI(words)
            #expect(run.status == .usage, "\(words)")
            #expect(run.errors.contains(message), "\(words): \(run.errors)")
            #expect(run.errors.contains("run 'sensorbridge \(words[0])"), "\(words): \(run.errors)")
        }
        // Nothing like any option: no guess.
        let nothingLike = runCLI(["replay", "ride.jsonl", "--xyzzy"])
        #expect(nothingLike.status == .usage && nothingLike.errors.contains("unknown option '--xyzzy' for 'replay'; run"))
        // Every command and subcommand: its longest option with one letter dropped is answered
        // with an option that command takes.
        for entry in CommandReference.make().entries where entry.options.count + entry.flags.count > 1 {
            let option = try #require((entry.options + entry.flags).filter { $0.hasPrefix("--") }.max { $0.count < $1.count })
            var typo = option
            typo.remove(at: typo.index(typo.startIndex, offsetBy: 3))
            let run = runCLI(entry.words + [typo, "1"])
            let suggested = run.errors.components(separatedBy: "(did you mean '").dropFirst().first?.components(separatedBy: "'").first
            #expect(run.status == .usage, "\(entry.words) \(typo)")
            #expect(suggested.map { (entry.options + entry.flags).contains($0) } == true, "\(entry.words) \(typo): \(run.errors)")
        }
    }

    // MARK: 2. negative numbers

    @Test func negativeNumbersAreValuesNotOptions() throws {
        let parsed = try CommandArguments(
            ["-5", "--age", "-3", "-0.5", "-.5", "-1e3", "-5,120,140", "--ftp=-2"], command: "test", options: ["age", "ftp"])
        #expect(parsed.positionals == ["-5", "-0.5", "-.5", "-1e3", "-5,120,140"])
        #expect(parsed["age"] == "-3" && parsed["ftp"] == "-2")
        for word in ["-x", "-inf", "-nan", "-5,x", "--5"] {
            #expect(throws: UsageError.self, "\(word)") { try CommandArguments([word], command: "test") }
        }
        // What the command says of the value instead of "unknown option".
        let id = runCLI(["workouts", "delete", "-3", "--store", store])
        #expect(id.status == .usage && id.errors.contains("'-3' is not a workout id"), "\(id.errors)")
        let age = runCLI(["zones", "defaults", "--age", "-5"])
        #expect(age.status == .usage && age.errors.contains("--age -5 is out of range"), "\(age.errors)")
        // A boundary list starting below zero reaches the zone checks.
        let zones = runCLI(["zones", "set", "heart-rate", "-5,140,155,170", "--store", store])
        #expect(!zones.errors.contains("unknown option"), "\(zones.errors)")
    }

    /// Every numeric value a command takes, at its limits (huge, tiny, zero, negative, nan, inf,
    /// past Int64 and Duration): a usage error that names the option and what to give, never a
    /// trap (`replay --pace 1e25` and `--pace 1e-300` trapped in Duration arithmetic). In-process:
    /// a trap would end the test run.
    @Test func everyNumericOptionAtItsLimitsIsAUsageError() throws {
        let ride = capture("run-30min-hr.jsonl")
        let btsnoop = CaptureCommandsTests.fixture
        let output = folder.appendingPathComponent("out.jsonl").path
        // Past every range, or not a number at all.
        let everywhere = ["1e25", "-1e25", "1e308", "-1", "nan", "inf", "-inf", "99999999999999999999", "9223372036854775808"]
        // Also refused where the range starts above zero.
        let belowPositive = ["0", "-0", "1e-300", "4.9e-324"]
        // (words with {} for the value, what the message names, whether the range starts above zero)
        let cases: [(words: [String], names: String, positive: Bool)] = [
            (["replay", ride, "--pace", "{}"], "--pace", true),
            (["replay", ride, "--auto-pause", "{}"], "--auto-pause", true),
            (["replay", ride, "--auto-lap", "{}"], "--auto-lap", true),
            (["replay", ride, "--target-debounce", "{}"], "--target-debounce", true),
            (["replay", ride, "--hr-zones", "130,150", "--target-hr-zone", "{}"], "--target-hr-zone", true),
            (["replay", ride, "--power-zones", "150,250", "--target-power-zone", "{}"], "--target-power-zone", true),
            (["replay", ride, "--hr-zones", "120,140,{}"], "--hr-zones", false),
            (["replay", ride, "--power-zones", "{},200"], "--power-zones", false),
            (["replay", ride, "--power-model", "{}", "--ftp", "250"], "--power-model", true),
            (["replay", btsnoop, "--handle", "{}=2a37"], "--handle", false),
            (["record", "--hr", "HRM-Pro", "--duration", "{}"], "--duration", true),
            (["record", "--hr", "HRM-Pro", "--latency-budget", "{}"], "--latency-budget", false),
            (["record", "--hr", "HRM-Pro", "--http", "{}"], "--http", false),
            (["serve", "--idle-timeout", "{}"], "--idle-timeout", true),
            (["serve", "--min-duration", "{}"], "--min-duration", false),
            (["serve", "--mqtt", "mqtt://broker:{}/x"], "--mqtt", true),
            (["scan", "--timeout", "{}"], "--timeout", false),
            (["capture", "--out", output, "--adapter", "hci{}"], "--adapter", false),
            (["web", "--http", "127.0.0.1:{}"], "--http", false),
            (["decode", "--capture", btsnoop, "--handle", "{}=2a37"], "--handle", false),
            (["convert", btsnoop, output, "--handle", "{}=2a37"], "--handle", false),
            (["zones", "defaults", "--resting-hr", "50", "--age", "{}"], "--age", true),
            (["zones", "set", "power", "150,{}"], "power", true),
            (["profile", "set", "--max-hr", "{}"], "--max-hr", true),
            (["profile", "set", "--resting-hr", "{}"], "--resting-hr", true),
            (["profile", "set", "--lthr", "{}"], "--lthr", true),
            (["profile", "set", "--ftp", "{}"], "--ftp", true),
            (["athletes", "add", "ann", "--power-zones", "150,{}"], "--power-zones", true),
            (["workouts", "zones", "--quantity", "power", "--by", "week", "--normalize", "{}"], "--normalize", true),
            (["workouts", "zones", "--quantity", "power", "--by", "week", "--zones", "{},300"], "--zones", false),
            (["workouts", "list", "--from", "{}"], "--from", true),
            (["workouts", "show", "{}"], "workout id", true),
            (["export", "{}", "--format", "fit"], "workout id", true),
        ]
        let reference = CommandReference.make()
        for entry in cases {
            let command = reference.entry(Array(entry.words.prefix(2))) ?? reference.entry([entry.words[0]])
            let storeWords = command?.options.contains("--store") == true ? ["--store", store] : []
            // A word `-inf` standing alone is an unknown option (it is no number), also a usage error.
            for value in everywhere + (entry.positive ? belowPositive : []) where !(value == "-inf" && entry.words.contains("{}")) {
                let words = entry.words.map { $0.replacingOccurrences(of: "{}", with: value) } + storeWords
                let run = runCLI(words, environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent"])
                #expect(run.status == .usage, "\(words): \(run.errors)")
                #expect(run.errors.contains(entry.names), "\(words): \(run.errors)")
                #expect(["give", "write", "takes", "must be", "needs"].contains { run.errors.contains($0) }, "\(words): \(run.errors)")
            }
        }
        // Where the message says what to give, it gives the range.
        #expect(runCLI(["replay", ride, "--pace", "1e25"]).errors.contains(
            "--pace 1e25 is out of range; give fast, realtime or a factor such as 4 (0.001 to 1000000)"))
        #expect(runCLI(["replay", ride, "--auto-pause", "inf"]).errors.contains(
            "--auto-pause inf: give off, or the seconds of stillness that pause (1 to 600)"))
    }

    // MARK: 3. completion

    /// Every option a command's parser declares is in its help, so completion, the manual page and
    /// --help agree.
    @Test func everyDeclaredOptionIsInItsCommandsHelp() {
        let reference = CommandReference.make()
        #expect(reference.entries.count == SensorBridgeCLI.subcommands.map { max(1, $0.subcommands.count + 1) }.reduce(0, +))
        for entry in reference.entries {
            for option in entry.options + entry.flags where option != "--help" {
                #expect(entry.help.contains(option), "\(entry.words): \(option) is not in its help")
            }
        }
        #expect(reference.entry(["workouts", "delete"])?.flags.contains("-y") == true)
        #expect(reference.entry(["export"])?.options.contains("-o") == true)
        #expect(reference.entry(["profile", "show"])?.options == ["--athlete", "--store"])
    }

    /// bash loads the script, registers it for sensorbridge, and the function answers as bash's
    /// completion would call it.
    @Test func bashCompletesCommandsSubcommandsAndOptions() throws {
        let script = folder.appendingPathComponent("sensorbridge.bash")
        let generated = runCLI(["completion", "bash"])
        #expect(generated.status == .success)
        try generated.output.write(to: script, atomically: true, encoding: .utf8)
        let syntax = try Self.child("/bin/bash", ["-n", script.path])
        #expect(syntax.status == 0, "\(syntax.errors)")
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let run = try Self.child(
                "/bin/bash",
                [
                    "-c",
                    "source '\(script.path)' && complete -p sensorbridge && COMP_WORDS=(\(quoted)) && COMP_CWORD=\(words.count - 1) "
                        + "&& _sensorbridge && printf 'reply %s\\n' \"${COMPREPLY[@]}\"",
                ])
            #expect(run.status == 0, "\(words): \(run.errors)")
            let lines = run.output.split(separator: "\n").map(String.init)
            #expect(lines.first == "complete -o default -F _sensorbridge sensorbridge", "\(run.output)")
            return lines.filter { $0.hasPrefix("reply ") }.map { String($0.dropFirst(6)) }.filter { !$0.isEmpty }
        }
        #expect(try complete(["sensorbridge", "rec"]) == ["record"])
        #expect(try complete(["sensorbridge", "co"]) == ["convert", "completion"])
        #expect(try complete(["sensorbridge", "workouts", "l"]) == ["list", "load"])
        #expect(try complete(["sensorbridge", "zones", "s"]) == ["set", "show"])
        #expect(try complete(["sensorbridge", "help", "exp"]) == ["export"])
        #expect(try complete(["sensorbridge", "record", "--tr"]) == ["--trace"])
        #expect(try complete(["sensorbridge", "workouts", "delete", "7", "--y"]) == ["--yes"])
        #expect(try complete(["sensorbridge", "workouts", "zones", "--n"]) == ["--normalize"])
        #expect(try complete(["sensorbridge", "profile", "show", "--"]) == ["--athlete", "--store", "--help", "--json"])
        // After an option that takes a value, and for arguments: nothing, so bash completes files.
        #expect(try complete(["sensorbridge", "export", "--output", ""]) == [])
        #expect(try complete(["sensorbridge", "replay", "Capt"]) == [])
    }

    @Test func zshAndFishScriptsAreValid() throws {
        for (shell, check) in [("zsh", ["-n"]), ("fish", ["--no-execute"])] {
            let generated = runCLI(["completion", shell])
            #expect(generated.status == .success && generated.output.contains("sensorbridge"))
            guard let program = Self.installed(shell) else {
                print("CommandLineTests: \(shell) is not installed; its completion script's syntax is not checked")
                continue
            }
            let script = folder.appendingPathComponent("completion.\(shell)")
            try generated.output.write(to: script, atomically: true, encoding: .utf8)
            let run = try Self.child(program, check + [script.path])
            #expect(run.status == 0 && run.errors.isEmpty, "\(shell): \(run.errors)")
            if shell == "zsh" {
                // The function run with the completion system's builtins stubbed (they only exist
                // inside a completion widget): what it offers for the words, before zsh filters
                // by the prefix, and _files where file names are due.
                let driver = folder.appendingPathComponent("drive.zsh")
                try """
                    compdef() { :; }
                    compadd() { [[ $1 == -- ]] && shift; print -l -- "$@"; }
                    _describe() { local name; for name in ${(P)${@[-1]}}; do print -r -- ${name%%:*}; done; }
                    _files() { print -r -- FILES; }
                    source $1
                    shift
                    PREFIX=${@[-1]}
                    words=("$@")
                    CURRENT=$#
                    _sensorbridge

                    """.write(to: driver, atomically: true, encoding: .utf8)
                for (line, expected) in [
                    ("sensorbridge rec", SensorBridgeCLI.subcommandNames + ["help", "--help", "--version"]),
                    ("sensorbridge workouts l", WorkoutsCommand.subcommands),
                    ("sensorbridge workouts delete 3 --y", ["--store", "--help", "--yes", "-y"]),
                    ("sensorbridge export --output x", ["FILES"]), ("sensorbridge replay Capt", ["FILES"]),
                ] {
                    let offered = try Self.child(program, ["-f", driver.path, script.path] + line.split(separator: " ").map(String.init))
                    #expect(offered.errors.isEmpty, "\(line): \(offered.errors)")
                    #expect(offered.output.split(separator: "\n").map(String.init) == expected, "\(line): \(offered.output)")
                }
                continue
            }
            // fish answers as it would at the prompt (complete -C): commands, subcommands, options.
            for (line, expected) in [
                ("sensorbridge rec", ["record"]), ("sensorbridge workouts l", ["list", "load"]), ("sensorbridge zones s", ["set", "show"]),
                ("sensorbridge workouts delete 3 --y", ["--yes"]), ("sensorbridge workouts zones --n", ["--normalize"]),
                ("sensorbridge help exp", ["export"]),
            ] {
                let completed = try Self.child(program, ["--no-config", "-c", "source \(script.path); complete -C '\(line)'"])
                #expect(completed.errors.isEmpty, "\(line): \(completed.errors)")
                let words = completed.output.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
                #expect(words == expected, "\(line): \(completed.output)")
            }
        }
        let zsh = runCLI(["completion", "zsh"]).output
        #expect(zsh.hasPrefix("#compdef sensorbridge\n") && zsh.contains("'workouts list') sb_options=(--activity --athlete --from --store --to)"))
        let fish = runCLI(["completion", "fish"]).output
        #expect(fish.contains("complete -c sensorbridge -n '__sensorbridge_in workouts delete' -s y\n"))
        #expect(fish.contains("complete -c sensorbridge -n '__sensorbridge_in export' -l format -r -F\n"))
        let unknown = runCLI(["completion", "bsh"])
        #expect(unknown.status == .usage && unknown.errors.contains("(did you mean 'bash'?)"))
    }

    // MARK: 4. manual page

    @Test func theManualPageIsCleanRoffWithEveryCommand() throws {
        let generated = runCLI(["man"])
        #expect(generated.status == .success)
        let page = generated.output
        for section in [".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH COMMANDS", ".SH \"EXIT STATUS\"", ".SH ENVIRONMENT", ".SH FILES"] {
            #expect(page.contains("\n" + section + "\n"), "\(section)")
        }
        for entry in CommandReference.make().entries {
            #expect(page.contains(".SS \"sensorbridge \(entry.words.joined(separator: " "))\""), "\(entry.words)")
        }
        #expect(page.contains("\\-\\-store PATH") && page.contains(".B SENSORBRIDGE_STORE"))
        // No line is taken for a request but those written as one.
        for line in page.split(separator: "\n") where line.hasPrefix(".") || line.hasPrefix("'") {
            #expect(line.range(of: #"^\.(TH|SH|SS|PP|TP|B|I|BR|RI|br|nf|fi|RS|RE)( |$)"#, options: .regularExpression) != nil, "\(line)")
        }
        #expect(ManualPage.escape(".x 'y") == "\\&.x 'y")
        #expect(ManualPage.escape("'quoted") == "\\&'quoted")
        #expect(ManualPage.escape("--a\\b é █") == "\\-\\-a\\eb \\[u00E9] \\[u2588]")
        let file = folder.appendingPathComponent("sensorbridge.1")
        try page.write(to: file, atomically: true, encoding: .utf8)
        if let groff = Self.installed("groff") {
            let run = try Self.child(groff, ["-man", "-Tutf8", "-ww", "-z", file.path])
            #expect(run.status == 0 && run.errors.isEmpty, "\(run.errors)")
        } else {
            print("CommandLineTests: groff is not installed; the manual page is not checked with it")
        }
        if let man = Self.installed("man") {
            let run = try Self.child(man, ["-l", file.path], environment: ["MANWIDTH": "100", "MANPAGER": "cat", "PATH": "/usr/bin:/bin"])
            #expect(run.status == 0, "\(run.errors)")
            for text in ["EXIT STATUS", "sensorbridge workouts delete", "--store PATH", "SENSORBRIDGE_STORE", "-y, --yes"] {
                #expect(run.output.contains(text), "\(text)")
            }
        } else {
            print("CommandLineTests: man is not installed; the manual page is not rendered")
        }
    }

    // MARK: 5. --json

    @Test func setAndResetPrintJSONWithJSON() throws {
        let set = try JSONValue(parsing: run(["profile", "set", "--age", "40", "--resting-hr", "50", "--ftp", "250", "--json"]).output)
        #expect(set == (try JSONValue(parsing: run(["profile", "show", "--json"]).output)))
        #expect(set["functionalThresholdPower"] == 250 && set["age"] == 40)
        let zones = try JSONValue(parsing: run(["zones", "set", "heart-rate", "120,140,155,170", "--json"]).output)
        #expect(zones == (try JSONValue(parsing: run(["zones", "show", "--json"]).output)))
        #expect(zones["heartRate"]?["source"] == "user" && zones["cyclingPower"]?["source"] == "system")
        let zonesReset = try JSONValue(parsing: run(["zones", "reset", "heart-rate", "--json"]).output)
        #expect(zonesReset["heartRate"]?["source"] == "system")
        let reset = try JSONValue(parsing: run(["profile", "reset", "--json"]).output)
        #expect(reset["functionalThresholdPower"] == .null && reset["powerZoneModel"] == "6")
        // Errors stay text on standard error.
        let refused = runCLI(["profile", "set", "--age", "400", "--json", "--store", store])
        #expect(refused.status == .usage && refused.output.isEmpty && refused.errors.hasPrefix("sensorbridge profile: --age"))
        // Options a subcommand does not use are refused, not ignored.
        #expect(runCLI(["profile", "show", "--age", "40", "--store", store]).status == .usage)
        #expect(runCLI(["profile", "set", "--age", "40", "--yes", "--store", store]).status == .usage)
    }

    // MARK: 6. questions before deleting

    @Test func deleteAndResetAskOnATerminalOnly() throws {
        for _ in 0..<3 { run(["replay", capture("run-30min-hr.jsonl"), "--save"]) }
        let question = "Delete workout 1 (2026-11-01 07:00 UTC, running, 30:00)? [y/N] "
        // No: nothing deleted, status 1.
        for answer in ["n\n", "\n", "", "nope\n"] {
            let declined = runCLI(
                ["workouts", "delete", "1", "--store", store], input: answer, environment: ["TZ": "UTC"], inputIsTerminal: true)
            #expect(declined.status == .failure, "\(answer)")
            #expect(declined.errors.hasPrefix(question), "\(declined.errors)")
            #expect(declined.errors.contains("workout 1 kept; nothing was deleted"))
            #expect(declined.output.isEmpty)
        }
        #expect(run(["workouts", "list", "--json"]).output.contains("\"id\":1,"))
        let yes = run(["workouts", "delete", "1"], input: "y\n", terminal: true)
        #expect(yes.errors == question && yes.output == "Deleted workout 1.\n")
        // --yes and -y: no question; not a terminal: no question (scripts, as before).
        #expect(run(["workouts", "delete", "2", "--yes"], terminal: true).errors.isEmpty)
        #expect(run(["workouts", "delete", "3", "-y"], terminal: true).errors.isEmpty)
        let script = run(["replay", capture("run-30min-hr.jsonl"), "--save"])
        #expect(script.output.hasSuffix("Saved as workout 4 in \(store).\n"), "ids are never given again")
        #expect(run(["workouts", "delete", "4"]).errors.isEmpty)
        // No such workout: nothing to ask, the usual error.
        let missing = runCLI(["workouts", "delete", "9", "--store", store], inputIsTerminal: true)
        #expect(missing.status == .failure && !missing.errors.contains("[y/N]"))

        run(["profile", "set", "--age", "40", "--resting-hr", "50", "--ftp", "250", "--power-model", "7"])
        let kept = runCLI(["profile", "reset", "--store", store], input: "no\n", inputIsTerminal: true)
        #expect(kept.status == .failure)
        #expect(kept.errors.hasPrefix("Reset your profile (age 40, resting HR 50 bpm, FTP 250 W, 7 power zones)? [y/N] "), "\(kept.errors)")
        #expect(try JSONValue(parsing: run(["profile", "show", "--json"]).output)["age"] == 40)
        #expect(run(["profile", "reset"], input: "yes\n", terminal: true).output.hasPrefix("Profile reset"))
        #expect(try JSONValue(parsing: run(["profile", "show", "--json"]).output)["age"] == .null)
        // Nothing left to forget: nothing to ask.
        #expect(run(["profile", "reset"], terminal: true).errors.isEmpty)
    }

    /// The built binary on a real terminal (a pseudo-terminal as its standard input and error):
    /// it asks, reads the answer as it is typed, and keeps or deletes the workout.
    @Test(.timeLimit(.minutes(10))) func theBuiltBinaryAsksOnARealTerminal() throws {
        for _ in 0..<2 { run(["replay", capture("run-30min-hr.jsonl"), "--save"]) }
        let binary = try CrashRecoveryTests.executable()
        for (answer, status, left) in [("n\n", Int32(1), [1, 2]), ("y\n", Int32(0), [2])] {
            let terminal = try PseudoTerminal()
            let child = Process()
            child.executableURL = binary
            child.arguments = ["workouts", "delete", "1", "--store", store]
            child.environment = ["TZ": "UTC"]
            child.standardInput = terminal.follower
            child.standardError = terminal.follower
            child.standardOutput = FileHandle.nullDevice
            try ChildLaunch.run(child)
            let asked = terminal.waitFor("Delete workout 1 (2026-11-01 07:00 UTC, running, 30:00)? [y/N] ", timeout: .seconds(30))
            if !asked { child.terminate() }
            #expect(asked, "\(terminal.screen)")
            terminal.type(answer)
            child.waitUntilExit()
            #expect(child.terminationStatus == status, "\(terminal.screen)")
            let listed = try JSONValue(parsing: run(["workouts", "list", "--json"]).output)["workouts"]?.arrayValue ?? []
            #expect(listed.compactMap { $0["id"]?.integerValue } == left)
        }
    }

    // MARK: 8. files

    @Test func fileErrorsNameTheFileAndTheProblem() throws {
        let garbage = folder.appendingPathComponent("garbage.bin")
        try Data((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }).write(to: garbage)
        let latin1 = folder.appendingPathComponent("latin1.jsonl")
        try Data([0x7B, 0x22, 0xE9, 0x22, 0x7D, 0x0A]).write(to: latin1)
        let text = folder.appendingPathComponent("notes.txt")
        try "ride notes\n".write(to: text, atomically: true, encoding: .utf8)
        let missing = folder.appendingPathComponent("missing.jsonl").path
        let cases: [(words: [String], message: String)] = [
            (["replay", folder.path], "sensorbridge replay: cannot read \(folder.path): it is a folder, not a file"),
            (["replay", garbage.path], "sensorbridge replay: \(garbage.path) is neither a JSONL trace nor a btsnoop capture"),
            (["replay", latin1.path], "sensorbridge replay: \(latin1.path) is neither a JSONL trace nor a btsnoop capture"),
            (["replay", text.path], "sensorbridge replay: \(text.path) is neither a JSONL trace nor a btsnoop capture"),
            (["replay", missing], "sensorbridge replay: cannot read \(missing): there is no such file"),
            (["decode", "--capture", folder.path], "sensorbridge decode: cannot read \(folder.path): it is a folder, not a file"),
            (["decode", "--capture", garbage.path], "sensorbridge decode: \(garbage.path) is neither a JSONL trace nor a btsnoop capture"),
            (["convert", missing, folder.appendingPathComponent("out.btsnoop").path], "sensorbridge convert: cannot read \(missing): there is no such file"),
        ]
        for (words, message) in cases {
            let run = runCLI(words)
            #expect(run.status == .failure, "\(words)")
            #expect(run.errors == message + "\n", "\(words)")
        }
        // A trace that starts as one and goes wrong is still told by its line.
        let broken = folder.appendingPathComponent("broken.jsonl")
        try "{\"sensorbridge\":\"trace\"\n".write(to: broken, atomically: true, encoding: .utf8)
        #expect(runCLI(["replay", broken.path]).errors.hasPrefix("sensorbridge replay: \(broken.path): line 1: "))
        // The path as typed, relative or not.
        let relative = runCLI(["replay", "."])
        #expect(relative.errors == "sensorbridge replay: cannot read .: it is a folder, not a file\n", "\(relative.errors)")
        // Permission denied: as an unprivileged user (root reads anything), through the built binary.
        let locked = folder.appendingPathComponent("locked.jsonl")
        try "{}\n".write(to: locked, atomically: true, encoding: .utf8)
        chmod(locked.path, 0o000)
        let binary = try CrashRecoveryTests.executable().path
        let denied =
            geteuid() == 0
            ? try Self.child("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", binary, "replay", locked.path])
            : try Self.child(binary, ["replay", locked.path])
        #expect(denied.status == 1)
        #expect(denied.errors == "sensorbridge replay: cannot read \(locked.path): permission denied (you may not read it)\n", "\(denied.errors)")
    }

    // MARK: README

    /// The README's completion and manual page lines, run as written in a home of their own with
    /// the built sensorbridge first in PATH.
    @Test func theREADMECompletionAndManualLinesWork() throws {
        let readme = try String(
            contentsOf: ReplayCommandTests.captures.deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "### Shell completion and the manual page\n").dropFirst().first)
        let block = section.components(separatedBy: "```sh\n")[1].components(separatedBy: "\n```")[0]
        let home = folder.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let bin = try CrashRecoveryTests.executable().deletingLastPathComponent().path
        let run = try Self.child(
            "/bin/bash", ["-e", "-c", block], environment: ["HOME": home.path, "PATH": "\(bin):/usr/bin:/bin", "MANPAGER": "cat"])
        #expect(run.status == 0, "\(run.errors)")
        for (file, start) in [
            (".local/share/bash-completion/completions/sensorbridge", "# bash completion for sensorbridge"),
            (".zfunc/_sensorbridge", "#compdef sensorbridge"), (".config/fish/completions/sensorbridge.fish", "# fish completion"),
            (".local/share/man/man1/sensorbridge.1", ".TH SENSORBRIDGE 1"),
        ] {
            let text = (try? String(contentsOf: home.appendingPathComponent(file), encoding: .utf8)) ?? ""
            #expect(text.hasPrefix(start), "\(file)")
        }
    }
}
