import Foundation
import SensorBridge
import SensorCore
import SensorTestSupport
import Session
import Workouts
import WorkoutStore
import Zones

/// `web`: what the web side costs (issue 16's targets).
///
/// - Live: `record` in this process against the mock org.bluez (as `bluez` runs it) at 5
///   notifications a second, saving into a store in a temporary folder; its CPU (getrusage of this
///   process, and by thread from `/proc/self/task/*/schedstat`) over the same 30 s of the ride,
///   once without `--http`, once with `--http` and no client, once with 50 clients following
///   `GET /api/live` (`scripts/sse-clients.py`, a process of its own, one loopback address per
///   client, which counts every client's bytes and events). Target: 50 clients cost under 1 % of a
///   core more than none.
/// - API: `web --http` in this process over a store of 1,000 one-hour rides; curl asks for
///   `/api/workouts` 50 times on one kept-alive connection (curl's `time_total` of each), then a
///   workout's JSON and its FIT file as many times, beside `workouts list --json` run in this
///   process. Target: the list in under 50 ms.
enum WebBenchmark {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let rate = 5.0
    static let clientCount = 50
    /// Seconds of the ride before the measured window (connections made, the session settled).
    static let warmUp = 3.0
    /// Seconds measured (SENSORBRIDGE_BENCH_WEB_SECONDS changes it).
    static let window = Double(ProcessInfo.processInfo.environment["SENSORBRIDGE_BENCH_WEB_SECONDS"] ?? "") ?? 30
    static let storedWorkouts = 1000
    static let requests = 50
    static let clientScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/sse-clients.py").path

    static func run(_ json: Bool) {
        if let reason = MockBlueZ.unavailableReason {
            FileHandle.standardError.write(Data("sensorbridge-bench web: \(reason)\n".utf8))
            exit(1)
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") else {
            FileHandle.standardError.write(Data("sensorbridge-bench web: needs curl (sudo apt-get install curl)\n".utf8))
            exit(1)
        }
        do {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-web-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            // One part alone, for a profiler (`perf record`): SENSORBRIDGE_BENCH_WEB_ONLY=live or api.
            let only = ProcessInfo.processInfo.environment["SENSORBRIDGE_BENCH_WEB_ONLY"]
            if only == "api" {
                let api = try apiLatencies(folder: folder)
                print(String(format: "GET /api/workouts p50 %.2f ms, workouts list --json p50 %.2f ms", api.list.percentile(0.5),
                    api.cliList.percentile(0.5)))
                return
            }
            let withoutHTTP = try livePhase(http: false, clients: 0, folder: folder)
            let noClient = try livePhase(http: true, clients: 0, folder: folder)
            let clients = try livePhase(http: true, clients: clientCount, folder: folder)
            if only == "live" {
                print(String(format: "record %.3f %%, --http %.3f %%, with %d clients %.3f %% of a core; clients: ", withoutHTTP.percent,
                    noClient.percent, clientCount, clients.percent) + describe(clients))
                return
            }
            let api = try apiLatencies(folder: folder)
            report(json, withoutHTTP: withoutHTTP, noClient: noClient, clients: clients, api: api)
        } catch {
            FileHandle.standardError.write(Data("sensorbridge-bench web: \(error)\n".utf8))
            exit(1)
        }
    }

    // MARK: Live

    /// What one live client received in the measured window.
    struct ClientCount {
        var bytes = 0
        var events: [String: Int] = [:]
    }

    struct LivePhase {
        var clients = 0
        /// CPU seconds of this process in the window, and the window's length.
        var cpu = 0.0
        var seconds = 0.0
        var notifications = 0
        var threads: [String: BlueZBenchmark.ThreadUse] = [:]
        /// Each client's share of the window (empty without clients).
        var received: [ClientCount] = []
        /// CPU seconds of the clients' process in the window.
        var clientCPU = 0.0

        var percent: Double { cpu / seconds * 100 }
    }

    /// `record` from a fresh mock at `rate`, with `--http` and `clients` live clients or without:
    /// its CPU over `window` seconds, from `warmUp` seconds after the first notification (and after
    /// every client has its snapshot).
    static func livePhase(http: Bool, clients: Int, folder: URL) throws -> LivePhase {
        // Longer than measured: the mock must still play when the window ends.
        let trace = try BlueZBenchmark.trace(count: Int((warmUp + window + 15) * rate), rate: rate)
        defer { try? FileManager.default.removeItem(at: trace) }
        let mock = try MockBlueZ(trace: trace, speed: 1, acquireNotify: ["hr", "power"], bluez: "5.84")
        defer { mock.stop() }
        let port = try freeLoopbackPort()
        var options = ["--store", folder.appendingPathComponent("live-\(UUID().uuidString).sqlite").path]
        if http { options += ["--http", String(port)] }
        let recording = BlueZBenchmark.record(mock, options, probe: nil)
        defer { recording.stop() }
        try recording.waitForFirst()
        let first = ContinuousClock.now

        var child: ChildProcess?
        defer { child?.stop() }
        if clients > 0 {
            let started = try ChildProcess(MockBlueZ.python, [clientScript, String(port), String(clients)], environment: [:])
            child = started
            guard started.waitForLine(timeout: .seconds(30), where: { $0.hasPrefix("connected ") }) != nil else {
                throw Failure(description: "not every live client got its snapshot: \(started.output.suffix(2000))")
            }
        }
        let start = max(first + .seconds(warmUp), ContinuousClock.now + .milliseconds(500))
        Thread.sleep(forTimeInterval: (start - ContinuousClock.now).seconds)

        let before = try child.map { try counts($0, occurrence: 1) } ?? []
        let clientCPUStart = child.map(processCPUSeconds) ?? 0
        let notificationsStart = recording.received()
        let threadsStart = BlueZBenchmark.threadCPUSeconds()
        let cpuStart = BlueZBenchmark.cpuSeconds()
        let clock = ContinuousClock.now
        Thread.sleep(forTimeInterval: window)
        var phase = LivePhase(clients: clients)
        phase.cpu = BlueZBenchmark.cpuSeconds() - cpuStart
        phase.seconds = (ContinuousClock.now - clock).seconds
        phase.threads = BlueZBenchmark.threadCPU(from: threadsStart, to: BlueZBenchmark.threadCPUSeconds())
        phase.notifications = recording.received() - notificationsStart
        phase.clientCPU = (child.map(processCPUSeconds) ?? 0) - clientCPUStart
        if let child {
            let after = try counts(child, occurrence: 2)
            phase.received = zip(before, after).map { before, after in
                ClientCount(
                    bytes: after.bytes - before.bytes,
                    events: after.events.reduce(into: [:]) { $0[$1.key] = $1.value - (before.events[$1.key] ?? 0) })
            }
            // Every client must have followed the ride all along.
            let expectedValues = Int(window * 2)
            if let lagging = phase.received.firstIndex(where: { ($0.events["values"] ?? 0) < expectedValues }) {
                throw Failure(
                    description: "live client \(lagging + 1) received \(phase.received[lagging].events) in \(Int(window)) s, "
                        + "fewer than \(expectedValues) values events")
            }
        }
        guard phase.notifications >= Int(window * rate) - 2 else {
            throw Failure(description: "record received \(phase.notifications) notifications in \(Int(window)) s at \(rate)/s")
        }
        return phase
    }

    /// The clients' counts so far: asked with SIGUSR1, printed as the `occurrence`-th `stats` line.
    static func counts(_ child: ChildProcess, occurrence: Int) throws -> [ClientCount] {
        child.send(SIGUSR1)
        guard let line = child.waitForLine(timeout: .seconds(10), occurrence: occurrence, where: { $0.hasPrefix("stats ") }),
            let list = try JSONValue(parsing: String(line.dropFirst("stats ".count))).arrayValue
        else { throw Failure(description: "the live clients did not report: \(child.output.suffix(2000))") }
        return try list.map { client in
            guard client["status"]?.integerValue == 200, client["closed"]?.boolValue == false else {
                throw Failure(description: "a live client was refused or closed: \(client.serialized)")
            }
            var events: [String: Int] = [:]
            for (name, count) in client["events"]?.objectValue?.pairs ?? [] { events[name] = count.integerValue ?? 0 }
            return ClientCount(bytes: client["bytes"]?.integerValue ?? 0, events: events)
        }
    }

    /// CPU seconds of a child process, all its threads.
    static func processCPUSeconds(_ child: ChildProcess) -> Double {
        BlueZBenchmark.threadCPUSeconds(process: String(child.processIdentifier)).values.reduce(0) { $0 + $1.use.seconds }
    }


    // MARK: API

    /// Milliseconds of each request of one kind, and the answer's size.
    struct Latencies {
        var nanoseconds: [UInt64]
        var bytes: Int

        func percentile(_ fraction: Double) -> Double { BlueZBenchmark.percentile(nanoseconds.sorted(), fraction) }
        var maximum: Double { Double(nanoseconds.max() ?? 0) / 1e6 }
    }

    struct APIFigures {
        var setupSeconds = 0.0
        var storeBytes = 0
        var list: Latencies
        var show: Latencies
        var fit: Latencies
        var cliList: Latencies
    }

    static func apiLatencies(folder: URL) throws -> APIFigures {
        let path = folder.appendingPathComponent("workouts.sqlite").path
        let setup = ContinuousClock.now
        try makeStore(path)
        let setupSeconds = (ContinuousClock.now - setup).seconds

        let port = try freeLoopbackPort()
        let control = RecordingControl()
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var context = CommandContext(input: LineReader(text: ""), output: TextOutput(), errors: TextOutput(), environment: ["TZ": "UTC"])
            context.recordingControl = control
            _ = SensorBridgeCLI.run(["web", "--http", String(port), "--store", path], context: context)
            finished.signal()
        }
        defer {
            control.stop()
            finished.wait()
        }
        let base = "http://127.0.0.1:\(port)"
        let deadline = ContinuousClock.now + .seconds(20)
        while try curl(base + "/api/workouts/1", count: 1).statuses != [200] {
            guard ContinuousClock.now < deadline else { throw Failure(description: "web --http never answered on port \(port)") }
            Thread.sleep(forTimeInterval: 0.05)
        }

        // The same list by HTTP as by the command.
        var cliBytes: [UInt8] = []
        var cli: [UInt64] = []
        for _ in 0..<requests {
            let start = ContinuousClock.now
            let context = CommandContext(input: LineReader(text: ""), output: TextOutput(), errors: TextOutput(), environment: ["TZ": "UTC"])
            guard SensorBridgeCLI.run(["workouts", "list", "--json", "--store", path], context: context) == .success else {
                throw Failure(description: "workouts list failed: \(context.errors.text)")
            }
            cliBytes = context.output.bytes
            cli.append(UInt64((ContinuousClock.now - start).seconds * 1e9))
        }
        guard (try JSONValue(parsing: String(decoding: cliBytes, as: UTF8.self)))["workouts"]?.arrayValue?.count == storedWorkouts else {
            throw Failure(description: "workouts list --json does not list \(storedWorkouts) workouts")
        }
        let list = try curl(base + "/api/workouts", count: requests, keep: true)
        guard list.body == cliBytes else { throw Failure(description: "/api/workouts is not what workouts list --json prints") }
        let middle = storedWorkouts / 2
        let show = try curl(base + "/api/workouts/\(middle)", count: requests)
        let fit = try curl(base + "/api/workouts/\(middle).fit", count: requests)
        return APIFigures(
            setupSeconds: setupSeconds, storeBytes: (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0,
            list: list.latencies, show: show.latencies, fit: fit.latencies, cliList: Latencies(nanoseconds: cli, bytes: cliBytes.count))
    }

    /// `storedWorkouts` one-hour rides, one a day (seven variants of `SyntheticRide`), as
    /// `StoreBenchmark` makes them.
    static func makeStore(_ path: String) throws {
        let store = try WorkoutStore(path: path)
        let firstDay = Date(timeIntervalSince1970: 1_767_618_000)  // Monday 2026-01-05 13:00 UTC
        var variants: [Workout] = []
        for seed in 0..<7 {
            variants.append(
                try SyntheticRide.workout(seconds: 3600, seed: UInt64(10 + seed), startDate: firstDay, heartRateShift: Double(2 * seed - 6)))
        }
        for index in 0..<storedWorkouts {
            var workout = variants[index % variants.count]
            workout.startDate = firstDay.addingTimeInterval(Double(index) * 86_400)
            try store.save(workout)
        }
    }

    /// `count` requests for `url` by one curl process, on one kept-alive connection: each one's
    /// status and `time_total`, and the last body.
    static func curl(_ url: String, count: Int, keep: Bool = false) throws
        -> (statuses: [Int], latencies: Latencies, body: [UInt8])
    {
        let body = FileManager.default.temporaryDirectory.appendingPathComponent("bench-web-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: body) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        // Every transfer writes the same file: the last one's body stays.
        process.arguments =
            ["-s", "--max-time", "60", "-w", "%{http_code} %{size_download} %{time_total}\n"]
            + Array(repeating: ["-o", body.path, url], count: count).flatMap { $0 }
        let output = ChildLaunch.pipe()
        process.standardOutput = output
        try ChildLaunch.run(process)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var statuses: [Int] = []
        var nanoseconds: [UInt64] = []
        var bytes = 0
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 3, let status = Int(fields[0]), let size = Int(fields[1]), let seconds = Double(fields[2]) else { continue }
            statuses.append(status)
            bytes = size
            nanoseconds.append(UInt64(seconds * 1e9))
        }
        if count > 1, statuses != Array(repeating: 200, count: count) {
            throw Failure(description: "curl \(url): statuses \(statuses)")
        }
        let last = keep ? (try? Data(contentsOf: body)).map { [UInt8]($0) } ?? [] : []
        return (statuses, Latencies(nanoseconds: nanoseconds, bytes: bytes), last)
    }

    // MARK: Report

    static func report(_ json: Bool, withoutHTTP: LivePhase, noClient: LivePhase, clients: LivePhase, api: APIFigures) {
        let difference = clients.percent - noClient.percent
        func spread(_ values: [Int]) -> String { "\(values.min() ?? 0)-\(values.max() ?? 0)" }
        let values = clients.received.map { $0.events["values"] ?? 0 }
        let events = clients.received.map { $0.events.values.reduce(0, +) }
        let bytes = clients.received.map(\.bytes)
        let list = api.list.percentile(0.5)
        if json {
            func phase(_ phase: LivePhase) -> JSONValue {
                var object: JSONObject = [
                    "cpuPercent": .number(BlueZBenchmark.rounded(phase.percent, 3)),
                    "notifications": .number(Double(phase.notifications)),
                    "cpuByThread": .string(describe(phase)),
                ]
                if phase.clients > 0 {
                    object["clients"] = .number(Double(phase.clients))
                    object["valuesEventsPerClient"] = .string(spread(values))
                    object["eventsPerClient"] = .string(spread(events))
                    object["bytesPerClient"] = .string(spread(bytes))
                    object["clientsCPUPercent"] = .number(BlueZBenchmark.rounded(phase.clientCPU / phase.seconds * 100, 2))
                }
                return .object(object)
            }
            func latencies(_ latencies: Latencies) -> JSONValue {
                .object([
                    "p50Milliseconds": .number(BlueZBenchmark.rounded(latencies.percentile(0.5), 2)),
                    "p99Milliseconds": .number(BlueZBenchmark.rounded(latencies.percentile(0.99), 2)),
                    "maxMilliseconds": .number(BlueZBenchmark.rounded(latencies.maximum, 2)),
                    "bytes": .number(Double(latencies.bytes)),
                ])
            }
            Bench.printJSON([
                "live": .object([
                    "seconds": .number(window), "notificationsPerSecond": .number(rate),
                    "withoutHTTP": phase(withoutHTTP), "noClient": phase(noClient), "clients": phase(clients),
                    "differencePercentagePoints": .number(BlueZBenchmark.rounded(difference, 3)),
                    "underOnePercent": .bool(difference < 1),
                ]),
                "api": .object([
                    "workouts": .number(Double(storedWorkouts)), "requests": .number(Double(requests)),
                    "list": latencies(api.list), "show": latencies(api.show), "fit": latencies(api.fit),
                    "cliList": latencies(api.cliList), "timesCLI": .number(BlueZBenchmark.rounded(list / api.cliList.percentile(0.5), 2)),
                    "listUnder50Milliseconds": .bool(api.list.percentile(0.99) < 50),
                ]),
            ])
            return
        }
        print("live: record at \(Int(rate)) notifications/s, CPU of its process over \(Int(window)) s, % of a core:")
        for (name, phase) in [("without --http", withoutHTTP), ("--http, no client", noClient), ("--http, \(clients.clients) clients", clients)] {
            print(
                "  " + name.padding(toLength: 22, withPad: " ", startingAt: 0) + String(format: "%6.3f %%  ", phase.percent)
                    + "(\(phase.notifications) notifications) by thread: \(describe(phase))")
        }
        print(
            String(format: "  %d clients cost %.3f percentage points more than none: ", clients.clients, difference)
                + (difference < 1 ? "under" : "NOT under") + " the 1 % target")
        print(
            "  each client received \(spread(values)) values events, \(spread(events)) events in all, \(spread(bytes)) bytes; "
                + String(format: "the clients' own process used %.2f %% of a core", clients.clientCPU / clients.seconds * 100))
        print(
            "api: web --http over \(storedWorkouts) one-hour rides "
                + String(format: "(saved in %.1f s, %.0f MB), %d requests each by curl on one connection:", api.setupSeconds,
                    Double(api.storeBytes) / 1e6, requests))
        func row(_ name: String, _ latencies: Latencies) {
            print(
                "  " + name.padding(toLength: 34, withPad: " ", startingAt: 0)
                    + String(
                        format: "p50 %7.2f ms  p99 %7.2f ms  max %7.2f ms  %8d bytes", latencies.percentile(0.5),
                        latencies.percentile(0.99), latencies.maximum, latencies.bytes))
        }
        row("GET /api/workouts", api.list)
        row("GET /api/workouts/\(storedWorkouts / 2)", api.show)
        row("GET /api/workouts/\(storedWorkouts / 2).fit", api.fit)
        row("workouts list --json, in-process", api.cliList)
        print(
            String(format: "  /api/workouts is %.2fx the command's p50; p99 %.2f ms: ", list / api.cliList.percentile(0.5), api.list.percentile(0.99))
                + (api.list.percentile(0.99) < 50 ? "under" : "NOT under") + " the 50 ms target")
    }

    /// `% of a core` by thread, most first: `sb.dbus 0.210, sb.live 0.031, ...`.
    static func describe(_ phase: LivePhase) -> String {
        phase.threads.filter { $0.value.seconds / phase.seconds * 100 >= 0.001 }.sorted { $0.value.seconds > $1.value.seconds }
            .map { "\($0.key) " + String(format: "%.3f", $0.value.seconds / phase.seconds * 100) }
            .joined(separator: ", ")
    }
}
