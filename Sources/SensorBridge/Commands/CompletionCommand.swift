/// `sensorbridge completion bash|zsh|fish`: a completion script for the shell, made from the
/// command table and the options each command's parser declares (`CommandReference`).
enum CompletionCommand {
    static let help = """
        Usage: sensorbridge completion bash|zsh|fish

        Prints a completion script for the shell: commands, the subcommands of workouts, zones and
        profile, and each command's options; after an option that takes a value, and for
        arguments, the shell completes file names. It is made from the options the commands
        accept, so it is as new as the sensorbridge that printed it.

        Examples:
          sensorbridge completion bash > ~/.local/share/bash-completion/completions/sensorbridge
          sensorbridge completion zsh > ~/.zfunc/_sensorbridge    # with fpath=(~/.zfunc $fpath) before compinit
          sensorbridge completion fish > ~/.config/fish/completions/sensorbridge.fish
          source <(sensorbridge completion bash)                  # this shell only
        """

    static let shells = ["bash", "zsh", "fish"]

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(words, command: "completion")
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 1)
        guard let shell = arguments.positionals.first else {
            throw UsageError("give the shell: sensorbridge completion bash, zsh or fish")
        }
        let reference = CommandReference.make()
        switch shell {
        case "bash": context.output.write(bash(reference))
        case "zsh": context.output.write(zsh(reference))
        case "fish": context.output.write(fish(reference))
        default:
            throw UsageError("no completion for '\(shell)'\(Suggestion.phrase(for: shell, among: shells)); give bash, zsh or fish")
        }
        return .success
    }

    /// The top-level words: every command, `help`, `--help`, `--version`.
    static var commandWords: [String] {
        SensorBridgeCLI.subcommandNames + ["help", "--help", "--version"]
    }

    /// Commands with subcommands, and those subcommands.
    static var groups: [(command: String, subcommands: [String])] {
        SensorBridgeCLI.subcommands.filter { !$0.subcommands.isEmpty }.map { ($0.name, $0.subcommands) }
    }

    /// Entries that take options: every command without subcommands, and every subcommand.
    static func leaves(_ reference: CommandReference) -> [CommandReference.Entry] {
        reference.entries.filter { entry in
            entry.words.count == 2 || !groups.contains { $0.command == entry.words[0] }
        }
    }

    // MARK: bash

    static func bash(_ reference: CommandReference) -> String {
        var script = """
            # bash completion for sensorbridge \(SensorBridgeCLI.version), printed by 'sensorbridge completion bash'.
            _sensorbridge() {
                local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} key=${COMP_WORDS[1]}
                COMPREPLY=()
                if [ "$COMP_CWORD" -eq 1 ]; then
                    COMPREPLY=($(compgen -W '\(commandWords.joined(separator: " "))' -- "$cur"))
                    return
                fi
                case $key in
                    help)
                        [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W '\(SensorBridgeCLI.subcommandNames.joined(separator: " "))' -- "$cur"))
                        return ;;

            """
        for group in groups {
            script += """
                        \(group.command))
                            if [ "$COMP_CWORD" -eq 2 ]; then
                                COMPREPLY=($(compgen -W '\(group.subcommands.joined(separator: " "))' -- "$cur"))
                                return
                            fi
                            key="\(group.command) ${COMP_WORDS[2]}" ;;

                """
        }
        script += """
                esac
                local options="" flags=""
                case $key in

            """
        for entry in leaves(reference) {
            script += """
                        '\(entry.words.joined(separator: " "))') options='\(entry.options.joined(separator: " "))' flags='\(entry.flags.joined(separator: " "))' ;;

                """
        }
        script += """
                esac
                # After an option that takes a value, and for arguments: file names (complete -o default).
                case " $options " in *" $prev "*) return ;; esac
                if [[ $cur == -* ]]; then
                    COMPREPLY=($(compgen -W "$options $flags" -- "$cur"))
                fi
            }
            complete -o default -F _sensorbridge sensorbridge

            """
        return script
    }

    // MARK: zsh

    /// `word` in zsh or fish single quotes.
    static func quoted(_ word: String, fish: Bool = false) -> String {
        fish
            ? "'" + word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
            : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    static func zsh(_ reference: CommandReference) -> String {
        let described = SensorBridgeCLI.subcommands.map { quoted("\($0.name):\($0.summary)") }.joined(separator: " ")
        var script = """
            #compdef sensorbridge
            # zsh completion for sensorbridge \(SensorBridgeCLI.version), printed by 'sensorbridge completion zsh'.
            _sensorbridge() {
                local -a sb_commands sb_options sb_flags
                local key
                sb_commands=(\(described))
                if (( CURRENT == 2 )); then
                    _describe -t commands 'sensorbridge command' sb_commands
                    compadd -- help --help --version
                    return
                fi
                key=$words[2]
                case $key in
                    help)
                        (( CURRENT == 3 )) && _describe -t commands 'sensorbridge command' sb_commands
                        return ;;

            """
        for group in groups {
            script += """
                        \(group.command))
                            if (( CURRENT == 3 )); then
                                compadd -- \(group.subcommands.joined(separator: " "))
                                return
                            fi
                            key="\(group.command) $words[3]" ;;

                """
        }
        script += """
                esac
                case $key in

            """
        for entry in leaves(reference) {
            script += """
                        \(quoted(entry.words.joined(separator: " ")))) sb_options=(\(entry.options.joined(separator: " "))); sb_flags=(\(entry.flags.joined(separator: " "))) ;;

                """
        }
        script += """
                esac
                # After an option that takes a value, and for arguments: file names.
                if (( ${sb_options[(Ie)$words[CURRENT-1]]} )) || [[ $PREFIX != -* ]]; then
                    _files
                else
                    compadd -- $sb_options $sb_flags
                fi
            }
            if [ "$funcstack[1]" = "_sensorbridge" ]; then
                _sensorbridge "$@"
            else
                compdef _sensorbridge sensorbridge
            fi

            """
        return script
    }

    // MARK: fish

    static func fish(_ reference: CommandReference) -> String {
        var lines = [
            "# fish completion for sensorbridge \(SensorBridgeCLI.version), printed by 'sensorbridge completion fish'.",
            "# Whether the words after 'sensorbridge' on the command line are exactly the arguments.",
            "function __sensorbridge_at",
            "    set -l words (commandline -opc)",
            "    test (count $words) -eq (math (count $argv) + 1); and __sensorbridge_in $argv",
            "end",
            "# Whether the words after 'sensorbridge' start with the arguments.",
            "function __sensorbridge_in",
            "    set -l words (commandline -opc)",
            "    set -e words[1]",
            "    test (count $words) -ge (count $argv); or return 1",
            "    for i in (seq (count $argv))",
            "        test \"$words[$i]\" = \"$argv[$i]\"; or return 1",
            "    end",
            "end",
            "complete -c sensorbridge -n '__sensorbridge_at' -f",
        ]
        for command in SensorBridgeCLI.subcommands {
            lines.append("complete -c sensorbridge -n '__sensorbridge_at' -a \(command.name) -d \(quoted(command.summary, fish: true))")
        }
        lines.append("complete -c sensorbridge -n '__sensorbridge_at' -a help -d 'a command\\'s options and examples'")
        lines.append("complete -c sensorbridge -n '__sensorbridge_at' -l version -d 'print the version'")
        lines.append("complete -c sensorbridge -n '__sensorbridge_at help' -f -a \(quoted(SensorBridgeCLI.subcommandNames.joined(separator: " "), fish: true))")
        for group in groups {
            lines.append(
                "complete -c sensorbridge -n '__sensorbridge_at \(group.command)' -f -a \(quoted(group.subcommands.joined(separator: " "), fish: true))")
        }
        for entry in leaves(reference) {
            let condition = quoted("__sensorbridge_in " + entry.words.joined(separator: " "), fish: true)
            for (option, takesValue) in entry.options.map({ ($0, true) }) + entry.flags.map({ ($0, false) }) {
                let name = option.hasPrefix("--") ? "-l \(option.dropFirst(2))" : "-s \(option.dropFirst())"
                lines.append("complete -c sensorbridge -n \(condition) \(name)\(takesValue ? " -r -F" : "")")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
