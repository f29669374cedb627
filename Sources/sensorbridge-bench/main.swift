// Benchmarks: `swift run -c release sensorbridge-bench <name> [--json]`.
// Each benchmark measures SensorBridge side by side with the obvious alternative in the same
// run and prints ratios; none of this is a unit test.
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.count == 2, arguments[0] == "--replay-child" {
    ReplayBenchmark.child(path: arguments[1])
    exit(0)
}
if arguments.count == 2, arguments[0] == "--write-trace" {
    ReplayBenchmark.writeTrace(path: arguments[1])
    exit(0)
}
let json = arguments.contains("--json")
let names = arguments.filter { !$0.hasPrefix("--") }

let benchmarks: [(name: String, summary: String, run: (Bool) -> Void)] = [
    ("decode", "GATT notifications decoded per second", DecodeBenchmark.run),
    ("ring", "SampleRing vs AsyncStream and a Mutex queue; wake-up latency; parked CPU", RingBenchmark.run),
    ("replay", "a 3-hour ride through the whole pipeline: time and peak memory", ReplayBenchmark.run),
    ("zones", "zone classification per second; re-bucketing 1000 one-hour workouts", ZonesBenchmark.run),
    ("bluez", "record from the mock org.bluez: flood, paced CPU per notification, idle CPU", BlueZBenchmark.run),
    ("store", "SQLite store: sample inserts, saving a 3-hour ride, weekly zones over 1,000 workouts", StoreBenchmark.run),
    ("btsnoop", "btsnoop capture parsing in MB/s beside tshark (needs Debian tshark)", BtsnoopBenchmark.run),
    ("export", "FIT export of a 3-hour ride, beside appending its records' values to Foundation Data", FITExportBenchmark.run),
    ("laps", "lap summaries and FIT export of a 24-hour ride with a lap every 10 s", LapsBenchmark.run),
    ("web", "record's CPU with 50 live web clients and none; /api/workouts over 1,000 workouts beside the CLI", WebBenchmark.run),
    ("fleet", "K bridges × M athletes saving at once into PostgreSQL and into one SQLite file; sync's commits", FleetBenchmark.run),
]

guard let name = names.first, let benchmark = benchmarks.first(where: { $0.name == name }) else {
    let list = benchmarks.map { "  \($0.name.padding(toLength: 10, withPad: " ", startingAt: 0))\($0.summary)" }
    FileHandle.standardError.write(Data("""
        Usage: swift run -c release sensorbridge-bench <name> [--json]

        Benchmarks:
        \(list.joined(separator: "\n"))

        """.utf8))
    exit(2)
}
benchmark.run(json)
