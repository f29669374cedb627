import Outputs
import Synchronization

/// A mistake on the command line: says what is wrong and what to do, and exits with status 2.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The parsed words of one subcommand: options with values, flags and positional arguments.
///
/// `--name value` and `--name=value` are both accepted; `--` ends option parsing. A word that is a
/// number or a comma-separated list of numbers (`-5`, `-0.5`, `-5,120,140`) is a value, never an
/// option, so a negative value reaches the command's own checks. Every option and flag must be
/// declared, so a typo is an error that names the command's `--help` (and the closest option, when
/// one is close enough to be meant), never a silently ignored word.
///
/// What a command declares is its option list: `completion` and `man` read it (`declarations`),
/// so completions offer exactly what the parser takes.
public struct CommandArguments: Sendable {
    public private(set) var values: [String: String] = [:]
    public private(set) var flags: Set<String> = []
    public private(set) var positionals: [String] = []
    let command: String

    /// - Parameters:
    ///   - words: the words after the subcommand name.
    ///   - command: the subcommand, for messages (`decode`, `zones defaults`).
    ///   - options: option names (without `--`) that take a value.
    ///   - flags: option names that take none.
    ///   - shortOptions: one-letter spellings of options that take a value (`-o` for `output`).
    ///   - shortFlags: one-letter spellings of flags (`-y` for `yes`).
    public init(
        _ words: some Sequence<String>, command: String, options: Set<String> = [], flags: Set<String> = [],
        shortOptions: [String: String] = [:], shortFlags: [String: String] = [:]
    ) throws(UsageError) {
        self.command = command
        Self.declarations?.record(
            Declaration(command: command, options: options, flags: flags, shortOptions: shortOptions, shortFlags: shortFlags))
        var iterator = words.makeIterator()
        var onlyPositionals = false
        while let word = iterator.next() {
            if onlyPositionals || !word.hasPrefix("-") || word == "-" || Self.isNumeric(word) {
                positionals.append(word)
                continue
            }
            if word == "--" {
                onlyPositionals = true
                continue
            }
            guard word.hasPrefix("--") else {
                if word == "-h" {
                    self.flags.insert("help")
                    continue
                }
                if let name = shortOptions[word] {
                    guard let value = iterator.next() else {
                        throw UsageError("\(word) needs a value; run 'sensorbridge \(command) --help' for an example")
                    }
                    guard values[name] == nil else { throw UsageError("\(word) and --\(name) are the same option; give it once") }
                    values[name] = value
                    continue
                }
                if let name = shortFlags[word] {
                    self.flags.insert(name)
                    continue
                }
                throw Self.unknown(word, command: command, known: options.union(flags))
            }
            var name = String(word.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if name == "help" {
                self.flags.insert("help")
            } else if flags.contains(name) {
                guard inlineValue == nil else { throw UsageError("--\(name) takes no value; write just --\(name)") }
                self.flags.insert(name)
            } else if options.contains(name) {
                guard let value = inlineValue ?? iterator.next() else {
                    throw UsageError("--\(name) needs a value; run 'sensorbridge \(command) --help' for an example")
                }
                guard values[name] == nil else { throw UsageError("--\(name) is given twice; give it once") }
                values[name] = value
            } else {
                throw Self.unknown("--\(name)", command: command, known: options.union(flags))
            }
        }
    }

    /// `unknown option '--trce' for 'record' (did you mean '--trace'?)`, the suggestion only when
    /// one of `known` (names without `--`) is close enough to be what was meant.
    static func unknown(_ word: String, command: String, known: Set<String>) -> UsageError {
        let typed = String(word.drop(while: { $0 == "-" }))
        let suggestion = Suggestion.closest(to: typed, among: known.union(["help"]).sorted()).map {
            " (did you mean '--\($0)'?)"
        }
        return UsageError(
            "unknown option '\(word)' for '\(command)'\(suggestion ?? ""); run 'sensorbridge \(command) --help' for the options")
    }

    /// Whether `word` is a number or a comma-separated list of numbers (`-5`, `-0.5`, `-.5`,
    /// `-1e3`, `-5,120`): a value, however it starts. `-inf` and `-nan` are not numbers here.
    static func isNumeric(_ word: String) -> Bool {
        word.split(separator: ",", omittingEmptySubsequences: false).allSatisfy { part in
            let digits = part.drop(while: { $0 == "-" || $0 == "+" })
            guard let first = digits.first, first.isASCII, first.isNumber || first == "." else { return false }
            return Double(part).map(\.isFinite) ?? false
        }
    }

    public func has(_ flag: String) -> Bool { flags.contains(flag) }
    public subscript(option: String) -> String? { values[option] }

    /// An option's value parsed as a number within `range`, or nil when the option is absent.
    ///
    /// Every numeric option is read here (or through `wholeNumber` and `seconds`), so that nan,
    /// infinities and values past the range are usage errors that name the option before any
    /// conversion (to `Int`, to `Duration`) could trap. `expecting` says what to give when it is
    /// more than a number (`fast, realtime or a factor`); the messages then add the range.
    public func number(_ option: String, in range: ClosedRange<Double>, expecting: String? = nil) throws(UsageError) -> Double? {
        guard let text = values[option] else { return nil }
        let bounds = "\(range.lowerBound.formatted) to \(range.upperBound.formatted)"
        guard let value = Double(text), value.isFinite else {
            throw UsageError(expecting.map { "--\(option) \(text): give \($0) (\(bounds))" } ?? "--\(option) needs a number from \(bounds), not '\(text)'")
        }
        guard range.contains(value) else {
            throw UsageError("--\(option) \(text) is out of range; give " + (expecting.map { "\($0) (\(bounds))" } ?? "a value from \(bounds)"))
        }
        return value
    }

    /// A whole-number option within `range`, or nil when absent; `example` shows one in messages.
    public func wholeNumber(_ option: String, in range: ClosedRange<Int>, example: String) throws(UsageError) -> Int? {
        guard let value = try number(option, in: Double(range.lowerBound)...Double(range.upperBound)) else { return nil }
        guard value.rounded() == value else {
            throw UsageError("--\(option) needs a whole number, like \(example), not '\(values[option] ?? "")'")
        }
        return Int(value)
    }

    /// A number of seconds within `range` as a duration (to the millisecond), or nil when absent.
    /// `range` must lie within what `Int64` milliseconds hold (about 292 million years).
    public func seconds(_ option: String, in range: ClosedRange<Double>, expecting: String? = nil) throws(UsageError) -> Duration? {
        try number(option, in: range, expecting: expecting).map { .milliseconds(Int64(($0 * 1000).rounded())) }
    }

    /// The options as a request's named values, spelled `--name` in messages.
    var requestValues: RequestValues {
        let values = self.values
        return RequestValues(spelling: { "--" + $0 }) { values[$0] }
    }

    /// Fails when there are positional arguments beyond `allowed`.
    public func expectPositionals(atMost allowed: Int) throws(UsageError) {
        if positionals.count > allowed {
            throw UsageError(
                "unexpected argument '\(positionals[allowed])' for '\(command)'; run 'sensorbridge \(command) --help'")
        }
    }
}

extension CommandArguments {
    /// What one parse of a command's words accepts: the option list its `--help` describes.
    struct Declaration: Sendable, Equatable {
        let command: String
        let options: Set<String>
        let flags: Set<String>
        let shortOptions: [String: String]
        let shortFlags: [String: String]
    }

    /// Collects the declarations of the parses made while it is set (`declarations`).
    final class DeclarationLog: Sendable {
        private let entries = Mutex<[Declaration]>([])
        func record(_ declaration: Declaration) { entries.withLock { $0.append(declaration) } }
        var all: [Declaration] { entries.withLock { $0 } }
    }

    /// Set while `CommandTable` runs a command's `--help` to learn its options.
    @TaskLocal static var declarations: DeclarationLog?
}
