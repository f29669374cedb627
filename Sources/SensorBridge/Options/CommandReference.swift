/// What every command takes, for `completion` and `man`: each command's (and subcommand's) help
/// and the options its parser declares, learned by running its `--help` in memory while
/// `CommandArguments.declarations` collects what each parse accepts. Nothing here lists an option
/// by hand, so a completion or the manual page can never offer one the parser refuses.
struct CommandReference: Sendable {
    /// One command, or one subcommand of `workouts`, `zones` or `profile`.
    struct Entry: Sendable {
        /// `["record"]`, `["workouts", "list"]`.
        let words: [String]
        /// The overview line of the command table.
        let summary: String
        /// What `sensorbridge WORDS --help` prints.
        let help: String
        /// Options that take a value, as typed: `--store`, `-o`; sorted.
        let options: [String]
        /// Options that take none, `--help` among them: `--json`, `-y`; sorted.
        let flags: [String]
    }

    /// Every command in the overview's order, a command with subcommands as one entry for it
    /// (its overview help, no options) followed by one per subcommand.
    let entries: [Entry]

    /// The reference of `SensorBridgeCLI.subcommands`.
    static func make() -> CommandReference {
        var entries: [Entry] = []
        for command in SensorBridgeCLI.subcommands {
            if command.subcommands.isEmpty {
                entries.append(entry([command.name], command))
            } else {
                let overview = helpAndDeclarations([command.name]).help
                entries.append(Entry(words: [command.name], summary: command.summary, help: overview, options: [], flags: ["--help"]))
                for name in command.subcommands { entries.append(entry([command.name, name], command)) }
            }
        }
        return CommandReference(entries: entries)
    }

    private static func entry(_ words: [String], _ command: SensorBridgeCLI.Subcommand) -> Entry {
        let (help, declarations) = helpAndDeclarations(words)
        var options: Set<String> = []
        var flags: Set<String> = ["--help", "-h"]
        for declaration in declarations {
            options.formUnion(declaration.options.map { "--" + $0 })
            options.formUnion(declaration.shortOptions.keys)
            flags.formUnion(declaration.flags.map { "--" + $0 })
            flags.formUnion(declaration.shortFlags.keys)
        }
        flags.remove("-h")
        return Entry(words: words, summary: command.summary, help: help, options: options.sorted(), flags: flags.sorted())
    }

    /// Runs `sensorbridge WORDS --help` in memory; its output and the parses it made.
    private static func helpAndDeclarations(_ words: [String]) -> (help: String, declarations: [CommandArguments.Declaration]) {
        let log = CommandArguments.DeclarationLog()
        let context = CommandContext(input: LineReader(text: ""), output: TextOutput(), errors: TextOutput())
        CommandArguments.$declarations.withValue(log) {
            _ = SensorBridgeCLI.run(words + ["--help"], context: context)
        }
        return (context.output.text, log.all)
    }

    /// The entry for `words`, if there is one.
    func entry(_ words: [String]) -> Entry? { entries.first { $0.words == words } }
}
