import SensorBridge
import SensorCore

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
