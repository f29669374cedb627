// `sensorbridge-bench fleet`: many bridges and athletes saving into one store, PostgreSQL beside
// one shared SQLite file, in one run.
import Foundation
import PostgreSQL
import SensorBridge
import SensorCore
import SensorTestSupport
import Synchronization
import Workouts
import WorkoutStore

/// K simulated bridges × M athletes, each athlete a `sensorbridge replay --save` of the bundled
/// one-hour ride at P times real time, all at once in this process (each bridge with a home, so a
/// store, of its own: the journal), saving into:
///
/// - one PostgreSQL database (a server started for the run, unix socket, `fsync=off` as in the
///   tests: the figures are the bridges' side and the server's CPU, not a disk's);
/// - one SQLite file shared by every bridge (what a single box with several adapters would do).
///
/// Then `sync`'s path on its own: K threads copying every saved workout again into an empty store
/// of each kind, each copy one transaction, to give the commit latency (p50, p99) and the sustained
/// samples per second a shared store takes.
///
/// Reported: wall time, samples per second sustained, the CPU of this process per athlete (as a
/// share of one core at real time: what one athlete costs a bridge), and PostgreSQL's own CPU.
enum FleetBenchmark {
    struct Options {
        var bridges = 4
        var athletes = 4
        var pace = 240.0
    }

    static func run(_ json: Bool) {
        var options = Options()
        let arguments = Array(CommandLine.arguments.dropFirst())
        func value(_ name: String) -> Double? {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? Double(arguments[$0 + 1]) : nil }
        }
        options.bridges = value("--bridges").map { Int($0) } ?? options.bridges
        options.athletes = value("--athletes").map { Int($0) } ?? options.athletes
        options.pace = value("--pace") ?? options.pace
        do {
            try measure(options, json: json)
        } catch {
            FileHandle.standardError.write(Data("sensorbridge-bench fleet: \(error)\n".utf8))
            exit(1)
        }
    }

    static let ride = "Captures/ride-60min-hr-power.jsonl"
    static let rideSeconds = 3780.0  // 1:03:00

    struct LiveResult {
        /// Wall time, and the ride's time at the pace: the fleet kept up when they are about equal.
        var wall: Double
        var paced: Double
        var samples: Int
        var cpu: Double
        var serverCPU: Double?
        /// Replays that failed (a store locked past its busy timeout, say), with the first error.
        var failed = 0
        var firstFailure: String?
    }

    struct CopyResult {
        var wall: Double
        var samples: Int
        var latencies: [Double]
    }

    static func measure(_ options: Options, json: Bool) throws {
        guard FileManager.default.fileExists(atPath: ride) else { throw Failure("run it from the package folder (it replays \(ride))") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try PostgreSQLServer()
        defer { server.stop() }

        let athletes = options.bridges * options.athletes
        print(
            "fleet: \(options.bridges) bridges × \(options.athletes) athletes = \(athletes) one-hour rides at \(Int(options.pace))× "
                + "real time, saving at once")
        let sqlitePath = folder.appendingPathComponent("shared.sqlite").path
        let postgreSQL = try server.makeDatabase()
        let viaSQLite = try live(options, store: sqlitePath, folder: folder.appendingPathComponent("sqlite-bridges"), server: nil)
        let viaPostgreSQL = try live(options, store: postgreSQL, folder: folder.appendingPathComponent("pg-bridges"), server: server)

        // The shared stores' workouts, copied again into empty ones by K threads.
        let saved = try StoreAddress.parse(postgreSQL)
        // What a workout takes on the server, its indexes and TOAST included, after a VACUUM.
        let sizes = try PostgreSQLConnection(postgreSQL)
        try sizes.execute("VACUUM ANALYZE")
        let bytes = try sizes.query("SELECT pg_database_size(current_database()) - (SELECT pg_database_size('template1'))").first!.int64(0)
        let bytesPerWorkout = Double(bytes) / Double(max(1, athletes - viaPostgreSQL.failed))
        let copyIntoSQLite = try copy(from: saved, threads: options.bridges, into: .sqlite(path: folder.appendingPathComponent("copy.sqlite").path))
        let copyIntoPostgreSQL = try copy(from: saved, threads: options.bridges, into: try StoreAddress.parse(try server.makeDatabase()))

        func percent(_ live: LiveResult) -> Double { live.cpu / Double(athletes) / (rideSeconds / options.pace) * 100 / options.pace }
        func p(_ values: [Double], _ q: Double) -> Double { values.sorted()[min(values.count - 1, Int(Double(values.count) * q))] }
        if json {
            func liveJSON(_ r: LiveResult) -> JSONValue {
                .object([
                    "wallSeconds": .number(r.wall), "pacedSeconds": .number(r.paced), "samples": .number(Double(r.samples)), "samplesPerSecond": .number(Double(r.samples) / r.wall),
                    "cpuSeconds": .number(r.cpu), "cpuPercentPerAthleteAtRealTime": .number(percent(r)),
                    "serverCPUSeconds": r.serverCPU.map(JSONValue.number) ?? .null, "failedReplays": .number(Double(r.failed)),
                    "firstFailure": r.firstFailure.map(JSONValue.string) ?? .null,
                ])
            }
            func copyJSON(_ r: CopyResult) -> JSONValue {
                .object([
                    "wallSeconds": .number(r.wall), "samplesPerSecond": .number(Double(r.samples) / r.wall),
                    "workoutsPerSecond": .number(Double(r.latencies.count) / r.wall), "commitP50Milliseconds": .number(p(r.latencies, 0.5) * 1000),
                    "commitP99Milliseconds": .number(p(r.latencies, 0.99) * 1000),
                ])
            }
            Bench.printJSON([
                "bridges": .number(Double(options.bridges)), "athletesPerBridge": .number(Double(options.athletes)), "pace": .number(options.pace),
                "liveIntoPostgreSQL": liveJSON(viaPostgreSQL), "liveIntoSQLite": liveJSON(viaSQLite),
                "copyIntoPostgreSQL": copyJSON(copyIntoPostgreSQL), "copyIntoSQLite": copyJSON(copyIntoSQLite),
                "postgreSQLBytesPerWorkout": .number(bytesPerWorkout),
            ])
            return
        }
        func liveLine(_ name: String, _ r: LiveResult) {
            let server = r.serverCPU.map { String(format: ", server %.2f s CPU", $0) } ?? ""
            print(
                String(
                    format: "  %@ %6.1f s wall (the rides last %.1f s at the pace), %@ samples sustained, %.2f s CPU here (%.3f %% of a core per athlete at real time)%@",
                    name.padding(toLength: 20, withPad: " ", startingAt: 0), r.wall, r.paced, Bench.humanRate(Double(r.samples) / r.wall), r.cpu,
                    percent(r), server))
            if let failure = r.firstFailure {
                print("    \(r.failed) of \(athletes) replays failed; the first: \(failure.trimmingCharacters(in: .whitespacesAndNewlines))")
            }
        }
        print("live (replay --save per athlete):")
        liveLine("into PostgreSQL", viaPostgreSQL)
        liveLine("into one SQLite file", viaSQLite)
        func copyLine(_ name: String, _ r: CopyResult) {
            print(
                String(
                    format: "  %@ %@ samples/s, %.1f workouts/s, commit p50 %.0f ms, p99 %.0f ms",
                    name.padding(toLength: 20, withPad: " ", startingAt: 0), Bench.humanRate(Double(r.samples) / r.wall),
                    Double(r.latencies.count) / r.wall, p(r.latencies, 0.5) * 1000, p(r.latencies, 0.99) * 1000))
        }
        print(String(format: "  PostgreSQL keeps %.2f MB per one-hour ride (tables, indexes, TOAST)", bytesPerWorkout / 1e6))
        print("sync (\(options.bridges) threads copying \(copyIntoPostgreSQL.latencies.count) workouts, one transaction each):")
        copyLine("into PostgreSQL", copyIntoPostgreSQL)
        copyLine("into one SQLite file", copyIntoSQLite)
        print(
            String(
                format: "ratios: live PostgreSQL/SQLite wall %.2f×, sync samples/s PostgreSQL/SQLite %.2f×",
                viaPostgreSQL.wall / viaSQLite.wall,
                (Double(copyIntoPostgreSQL.samples) / copyIntoPostgreSQL.wall) / (Double(copyIntoSQLite.samples) / copyIntoSQLite.wall)))
    }

    /// Every athlete's replay at once, each bridge's athletes with the bridge's home.
    static func live(_ options: Options, store: String, folder: URL, server: PostgreSQLServer?) throws -> LiveResult {
        let serverBefore = server.map(serverCPUSeconds)
        let cpuBefore = processCPUSeconds()
        let start = ContinuousClock.now
        let failures = Mutex<[String]>([])
        let athletes = options.bridges * options.athletes
        let pace = options.pace
        let ride = ride
        onThreads(athletes) { index in
            let bridge = index / options.athletes
            let home = folder.appendingPathComponent("bridge-\(bridge)").path
            let context = CommandContext(
                input: LineReader(text: ""), output: TextOutput(), errors: TextOutput(), environment: ["HOME": home, "TZ": "UTC"])
            let status = SensorBridgeCLI.run(
                [
                    "replay", ride, "--pace", String(pace), "--save", "--store", store, "--bridge-id", "bridge-\(bridge)",
                    "--age", "40", "--resting-hr", "50", "--ftp", "250",
                ], context: context)
            // A shared store it could not reach leaves the workout on the bridge: not saved there either.
            if status != .success || context.errors.text.contains("cannot reach") {
                failures.withLock { $0.append(context.errors.text) }
            }
        }
        let wall = (ContinuousClock.now - start).seconds
        let cpu = processCPUSeconds() - cpuBefore
        let failed = failures.withLock { $0 }
        let saved = try WorkoutStore(address: try StoreAddress.parse(store))
        // A replay that failed left no workout, or an unfinished one (its journal, for recover).
        let listings = try saved.workouts().filter(\.isFinished)
        guard listings.count == athletes - failed.count else { throw Failure("\(listings.count) workouts saved of \(athletes)") }
        let samples = try listings.reduce(0) { $0 + (try saved.samples(of: $1.id).count) }
        return LiveResult(
            wall: wall, paced: rideSeconds / pace, samples: samples, cpu: cpu, serverCPU: server.map { serverCPUSeconds($0) - serverBefore! },
            failed: failed.count, firstFailure: failed.first)
    }

    /// `threads` threads copying every workout of the store at `source` into the one at `address`,
    /// each with connections of its own, as `sync` on each bridge would.
    static func copy(from source: StoreAddress, threads: Int, into address: StoreAddress) throws -> CopyResult {
        let ids = try WorkoutStore(address: source).workouts().map(\.id)
        let next = Atomic(0)
        let latencies = Mutex<[Double]>([])
        let samples = Atomic(0)
        let failures = Mutex<[String]>([])
        _ = try WorkoutStore(address: address)  // made and migrated before the clock starts
        let start = ContinuousClock.now
        onThreads(threads) { _ in
            do {
                let from = try WorkoutStore(address: source)
                let into = try WorkoutStore(address: address)
                while case let index = next.add(1, ordering: .relaxed).oldValue, index < ids.count {
                    let began = ContinuousClock.now
                    _ = try into.copyWorkout(ids[index], from: from)
                    latencies.withLock { $0.append((ContinuousClock.now - began).seconds) }
                    samples.add(try from.samples(of: ids[index]).count, ordering: .relaxed)
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        let wall = (ContinuousClock.now - start).seconds
        if let failure = failures.withLock({ $0.first }) { throw Failure("a copy failed: \(failure)") }
        return CopyResult(wall: wall, samples: samples.load(ordering: .relaxed), latencies: latencies.withLock { $0 })
    }

    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// CPU of every process of the server (its folder is in their command lines), from /proc.
    static func serverCPUSeconds(_ server: PostgreSQLServer) -> Double {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var total = 0.0
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(entry) != nil {
            guard let command = try? String(contentsOfFile: "/proc/\(entry)/cmdline", encoding: .utf8),
                command.contains(server.directory.path) || isServerChild(entry, server),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // After the name: state is field 3; utime and stime are fields 14 and 15.
            if fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) { total += (user + system) / ticks }
        }
        return total
    }

    /// Whether process `pid` is a backend of `server` (its parent is the postmaster).
    static func isServerChild(_ pid: String, _ server: PostgreSQLServer) -> Bool {
        guard let pidFile = try? String(contentsOfFile: server.directory.appendingPathComponent("data/postmaster.pid").path, encoding: .utf8),
            let postmaster = pidFile.split(separator: "\n").first,
            let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")")
        else { return false }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 && fields[1] == postmaster
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
