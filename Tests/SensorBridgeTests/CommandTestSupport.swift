import Foundation
import SensorBridge
import SensorCore
import Outputs

/// Runs `sensorbridge` in-process with the given standard input and environment; returns status,
/// output and errors.
/// With `inputIsTerminal`, the command takes `input` for what someone typed at a terminal.
func runCLI(_ arguments: [String], input: String = "", environment: [String: String] = [:], inputIsTerminal: Bool = false)
    -> (status: ExitStatus, output: String, errors: String)
{
    let context = CommandContext(
        input: LineReader(text: input), output: TextOutput(), errors: TextOutput(), environment: environment,
        inputIsTerminal: inputIsTerminal)
    let status = SensorBridgeCLI.run(arguments, context: context)
    return (status, context.output.text, context.errors.text)
}

/// Each output line parsed as JSON.
func jsonLines(_ text: String) throws -> [JSONValue] {
    try text.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
}

/// The examples of the README section under `heading` (up to the next `## `): each `$ sensorbridge`
/// line in a code block, with the lines shown under it.
func readmeExamples(under heading: String) throws -> [(command: String, shown: [String])] {
    let readme = try String(
        contentsOf: ReplayCommandTests.captures.deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
    guard let section = readme.components(separatedBy: "\(heading)\n").dropFirst().first?.components(separatedBy: "\n## ").first
    else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "no README section \(heading)"]) }
    var examples: [(command: String, shown: [String])] = []
    var inBlock = false
    // A block in a list item is indented (by two spaces): its lines are read without the indentation.
    var indentation = ""
    // The example the lines of this block show; none before its first command.
    var current: Int?
    for line in section.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
        if !inBlock, line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
            indentation = String(line.prefix { $0 == " " })
        }
        let line = line.hasPrefix(indentation) ? String(line.dropFirst(indentation.count)) : line
        if line.hasPrefix("```") {
            inBlock.toggle()
            current = nil
        } else if inBlock, line.hasPrefix("$ sensorbridge ") {
            examples.append((String(line.dropFirst(2)), []))
            current = examples.count - 1
        } else if inBlock, let current {
            examples[current].shown.append(line)
        }
    }
    return examples
}
