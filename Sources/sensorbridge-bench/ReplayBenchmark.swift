import Captures
import Foundation
import GATT
import SensorBridge
import SensorCore

/// `sensorbridge-bench replay`: a generated 3-hour ride (heart rate 1 Hz with RR intervals,
/// power 4 Hz with crank data: 54,000 notifications) through the whole pipeline, as
/// `sensorbridge replay FILE --pace fast --json` runs it: trace parsing, decoding, the sample
/// ring, the consumer thread, the builder with zones and statistics, JSON output.
///
/// Each run happens in a child process so that its peak resident memory is the pipeline's own:
/// the `sensorbridge` binary beside this one when it is built (`swift build -c release`), else
/// this executable re-run with `--replay-child`, which links more code and so reads a few MB
/// higher. Beside it, in the same run, the obvious alternative for the first stage: parsing the
/// trace lines with Foundation's JSONSerialization.
enum ReplayBenchmark {
    static let hours = 3

    static func makeTrace() -> String {
        var lines = [
            #"{"sensorbridge":"trace","version":1,"start":"2026-11-29T07:00:00Z","devices":{"hr":{},"power":{}}}"#
        ]
        var revolutions: UInt16 = 0
        var crankTime = 0.0
        var rng = SystemRandomNumberGenerator()
        for quarter in 0..<(hours * 3600 * 4) {
            let t = Double(quarter) / 4
            let watts = Int16(150 + 100 * sin(t / 300) + Double.random(in: -10...10, using: &rng))
            while crankTime + 60.0 / 90 <= t {
                crankTime += 60.0 / 90
                revolutions &+= 1
            }
            var power = [UInt8]()
            for v in [UInt16(0x0020), UInt16(bitPattern: watts), revolutions, UInt16(Int(crankTime * 1024) & 0xFFFF)] {
                power += [UInt8(v & 0xFF), UInt8(v >> 8)]
            }
            lines.append(#"{"t":\#(t),"device":"power","uuid":"2a63","hex":"\#(Hex.encode(power))"}"#)
            if quarter % 4 == 0 {
                let bpm = UInt8(130 + 25 * sin(t / 400))
                let rr = UInt16(60.0 / Double(bpm) * 1024)
                let heart: [UInt8] = [0x16, bpm, UInt8(rr & 0xFF), UInt8(rr >> 8)]
                lines.append(#"{"t":\#(t),"device":"hr","uuid":"2a37","hex":"\#(Hex.encode(heart))"}"#)
            }
        }
        lines.append(#"{"t":\#(hours * 3600),"event":"end"}"#)
        return lines.joined(separator: "\n") + "\n"
    }

    static let replayArguments = ["--json", "--age", "40", "--resting-hr", "50", "--ftp", "250"]

    /// In the child: one replay; prints `{"seconds": s, "peakResidentBytes": b}`.
    static func child(path: String) {
        let context = CommandContext(input: LineReader(text: ""), output: TextOutput(), errors: TextOutput())
        let start = ContinuousClock.now
        let status = SensorBridgeCLI.run(["replay", path] + replayArguments, context: context)
        let seconds = (ContinuousClock.now - start).seconds
        guard status == .success else {
            FileHandle.standardError.write(Data(context.errors.text.utf8))
            exit(1)
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        print(JSONValue.object(["seconds": .number(seconds), "peakResidentBytes": .number(Double(usage.ru_maxrss) * 1024)]).serialized)
    }

    /// The `sensorbridge` binary beside this executable, if built.
    static var toolURL: URL? {
        let url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("sensorbridge")
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }

    /// Runs the replay in a child and returns its wall time and its own peak resident memory.
    ///
    /// The child is started with posix_spawn and reaped with wait4. Linux counts in a child's
    /// peak the parent's memory it shared until its exec, so the benchmark spawns the replays
    /// before it holds the trace itself (a first child writes the trace file).
    static func runChild(path: String) -> (seconds: Double, peakResidentBytes: Double) {
        let executable = toolURL?.path ?? CommandLine.arguments[0]
        let arguments = [executable] + (toolURL != nil ? ["replay", path] + replayArguments : ["--replay-child", path])
        return spawn(executable, arguments, measuresTool: toolURL != nil)
    }

    static func spawn(_ executable: String, _ arguments: [String], measuresTool: Bool) -> (seconds: Double, peakResidentBytes: Double) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-bench-child.out").path
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        guard posix_spawn(&pid, executable, &actions, nil, &argv, environ) == 0 else {
            fatalError("cannot start \(executable)")
        }
        var status: Int32 = 0
        var usage = rusage()
        wait4(pid, &status, 0, &usage)
        let wall = (ContinuousClock.now - start).seconds
        guard status == 0 else { fatalError("the child replay failed with status \(status)") }
        if measuresTool {
            // The whole process, start-up included: what a person waits for.
            return (wall, Double(usage.ru_maxrss) * 1024)
        }
        guard let data = FileManager.default.contents(atPath: output), let result = try? JSONValue(parsing: [UInt8](data)),
            let seconds = result["seconds"]?.doubleValue, let bytes = result["peakResidentBytes"]?.doubleValue
        else { fatalError("the child replay printed no result") }
        return (seconds, bytes)
    }

    /// In a child: writes the generated trace to `path`.
    static func writeTrace(path: String) {
        try? makeTrace().write(to: URL(fileURLWithPath: path), atomically: true, encoding: .utf8)
    }

    static func run(json: Bool) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-bench-3h.jsonl")
        _ = spawn(CommandLine.arguments[0], [CommandLine.arguments[0], "--write-trace", url.path], measuresTool: true)
        defer { try? FileManager.default.removeItem(at: url) }

        let runs = (0..<5).map { _ in runChild(path: url.path) }
        let best = runs.min { $0.seconds < $1.seconds }!
        let peak = runs.map(\.peakResidentBytes).max()!

        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        let bytes = Array(text.utf8)
        let notifications = (try? TraceReader.parse(bytes))?.notificationCount ?? 0

        // The first stage beside the obvious alternative.
        let oursParse = Bench.rate(batch: 1, seconds: 0.5, rounds: 3) { (try? TraceReader.parse(bytes))?.records.count ?? 0 }
        let foundationParse = Bench.rate(batch: 1, seconds: 0.5, rounds: 3) {
            var count = 0
            for line in text.split(separator: "\n") {
                if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    object["t"] != nil
                {
                    count += 1
                }
            }
            return count
        }

        if json {
            Bench.printJSON([
                "notifications": .number(Double(notifications)), "seconds": .number(best.seconds),
                "perSecond": .number((Double(notifications) / best.seconds).rounded()),
                "peakResidentBytes": .number(peak),
                "traceParse": .object([
                    "perSecond": .number(oursParse), "jsonSerializationPerSecond": .number(foundationParse),
                    "ratio": .number((oursParse / foundationParse * 10).rounded() / 10),
                ]),
            ])
        } else {
            let measured = toolURL == nil ? "this benchmark re-run as a child (build sensorbridge for the real tool)" : "the sensorbridge binary"
            print("replay: a \(hours)-hour ride, \(notifications) notifications, --pace fast, best of \(runs.count) runs of \(measured)")
            print(String(format: "  whole pipeline  %.3f s  (%@ notifications)   target < 0.2 s", best.seconds, Bench.humanRate(Double(notifications) / best.seconds)))
            print(String(format: "  peak resident   %.1f MB                          target < 30 MB", peak / 1e6))
            print(String(format: "  trace parsing   %.1f traces/s vs JSONSerialization %.1f traces/s: %.1fx", oursParse, foundationParse, oursParse / foundationParse))
        }
    }
}
