import Foundation
import HTTP
import Outputs
import Web
import Session

/// `sensorbridge web`: the web page and the HTTP API over the stored workouts, with nothing
/// recording (`record --http` and `serve --http` add the live workout).
enum WebCommand {
    static let help = """
        Usage: sensorbridge web --http [ADDR:]PORT [--http-token-file FILE] [--http-read-only-token-file FILE]
                                [--http-read-only] [--http-tls-cert FILE --http-tls-key FILE] [--store PATH]

        Serves the stored workouts as a web page and an HTTP API (docs/HTTP.md) until Ctrl-C
        (SIGINT) or SIGTERM: the list, each workout's JSON and its FIT, TCX, CSV and SVG files,
        and time in zone by day, week or month. It only reads the store.

        Options:
        \(WebOptions.help)
        \(StoreLocation.help)

        Example:
          sensorbridge web --http 8080      # then open http://127.0.0.1:8080/
        """

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(words, command: "web", options: WebOptions.options.union([StoreLocation.option]), flags: WebOptions.flags)
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 0)
        guard let options = try WebOptions(arguments) else { throw UsageError("give --http [ADDR:]PORT, for example --http 8080") }
        // Checked now: a missing or foreign store is an error at start, not on the first request.
        _ = try StoreLocation.openForReading(arguments, context, noteUnfinished: false)
        let progress = Progress(output: context.errors)
        let log: @Sendable (String) -> Void = { progress.line("sensorbridge web: " + $0) }
        guard let server = try LiveWiring.serveWeb(options, arguments, context, live: nil, log: log) else { return .failure }
        let control = context.recordingControl ?? RecordingControl()
        let signals = context.recordingControl == nil ? SignalHandlers.stopping(control) : nil
        _ = control.wait(timeout: nil)
        signals?.cancel()
        server.stop()
        return .success
    }
}
