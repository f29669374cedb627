import Session
import Foundation
import SensorBridge
import SensorCore
import SensorTestSupport
import Synchronization

/// `bluez`: `record` in this process against a private dbus-daemon and the mock org.bluez
/// (python-dbusmock), which it starts itself, beside its peers on the same mock: the D-Bus floor and
/// the AcquireNotify floor (`NotificationFloor`: receive and count, nothing else) and bleak
/// (`BleakPeer`). Each of them takes two loads in turn, a fresh mock for each: a flood (two sensors
/// sending as fast as the mock and the bus allow) and a paced one (200 notifications per second for
/// 10 s, each stamped with its send time for the latency to the sample applied by the session). The
/// figure is CPU per notification: of this process for `record` (with StartNotify, with
/// `--acquire-notify` and saving into a store), of the receiving thread for the floors, of the child
/// process for bleak. Relaying (`--relay`, the mock's central subscribed) is measured against
/// `record` in adjacent pairs, in turn one first then the other, on both receive paths: its figure
/// is the median of the pairs' ratios, so that the machine's drift between phases cancels out.
/// Beside it, the same for the AcquireNotify floor sending each packet on (one `send`): the least
/// relaying can cost. Then idle: connected sensors that send nothing for 10 s; then
/// `HandOffFloor`, the design's path with nothing in it.
enum BlueZBenchmark {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// How the mock sends: `count` notifications alternating between the strap and the power meter,
    /// `rate` per second, or all at once (nil).
    struct Load {
        var count: Int
        var rate: Double?
    }

    /// What subscribes to the mock in a phase.
    enum Client {
        /// `sensorbridge record` in this process with these options besides the sensors and `--json`.
        case record([String])
        /// A floor; relaying (AcquireNotify only), it also sends each packet on, one `send`.
        case floor(NotificationFloor.Subscription, relaying: Bool = false)
        case bleak(acquireNotify: Bool)
    }

    /// A client of the mock as a phase sees it.
    struct Peer {
        /// Returns once the first notification has arrived; throws when none will.
        var waitForFirst: () throws -> Void
        /// Notifications received so far.
        var received: () -> Int
        /// CPU seconds used so far by what is measured.
        var cpuSeconds: () -> Double
        /// Seconds between two looks at `received` while the last notifications come in.
        var interval = 0.002
        /// Ends the client.
        var stop: () -> Void
        /// Values the reader of its relay got (the mock's central, or a relaying floor's own), once
        /// stopped; nil when it does not relay.
        var relayed: () -> Int? = { nil }
    }

    struct Phase {
        var sent = 0
        var received = 0
        /// From the first notification received to the last.
        var receiveSeconds = 0.0
        /// CPU seconds of what is measured while the mock played.
        var cpu = 0.0
        /// CPU seconds of what is measured during `idleAfterPlay`.
        var idleCPU = 0.0
        /// Nanoseconds from the mock's send to the sample applied (`record` with a paced load).
        var latencies: [UInt64] = []
        /// Values the reader of the relay's sockets received: the mock's central (`record --relay`)
        /// or the relaying floor's own.
        var relayed: Int?
        /// CPU seconds and times run of this process's threads while the mock played, by thread name.
        var threadCPU: [String: ThreadUse] = [:]

        /// Microseconds of CPU per notification received.
        var cpuPerNotification: Double { cpu / Double(max(received, 1)) * 1e6 }
        var perSecond: Double { Double(received) / receiveSeconds }
    }

    /// One load's phases: `record` three ways and its peers, taken in turn.
    struct Round {
        var record: Phase
        var dbusFloor: Phase
        var bleak: Phase?
        var recordAcquireNotify: Phase
        var acquireNotifyFloor: Phase
        var bleakAcquireNotify: Phase?
        var recordSave: Phase
        /// `record --relay` against `record`, and with `--acquire-notify`.
        var relay: RelayComparison
        var relayAcquireNotify: RelayComparison
        /// The AcquireNotify floor sending each packet on against the floor: the least relaying costs.
        var relayFloor: RelayComparison
    }

    /// A client with and without relaying, in adjacent pairs.
    struct RelayComparison {
        var pairs: [(plain: Phase, relay: Phase)]
        /// Each pair's CPU per notification relaying over not, in the order taken.
        var ratios: [Double] { pairs.map { $0.relay.cpuPerNotification / $0.plain.cpuPerNotification } }
        var medianRatio: Double { ratios.sorted()[ratios.count / 2] }
        /// The median of the pairs' microseconds of CPU per notification that relaying added.
        var medianExtra: Double { pairs.map { $0.relay.cpuPerNotification - $0.plain.cpuPerNotification }.sorted()[pairs.count / 2] }
        /// The relaying phase of the median pair.
        var median: Phase { pairs[ratios.indices.sorted { ratios[$0] < ratios[$1] }[ratios.count / 2]].relay }
        /// Whether the reader got every value the client received, in every relaying phase.
        var everyValueRelayed: Bool { pairs.allSatisfy { $0.relay.relayed == $0.relay.received } }
        /// The relaying phase whose reader missed the most, as "RELAYED of RECEIVED".
        var leastRelayed: String {
            let phase = pairs.map(\.relay).min { $0.received - ($0.relayed ?? 0) > $1.received - ($1.relayed ?? 0) }!
            return "\(phase.relayed ?? 0) of \(phase.received)"
        }
    }

    static func run(_ json: Bool) {
        if let reason = MockBlueZ.unavailableReason {
            FileHandle.standardError.write(Data("sensorbridge-bench bluez: \(reason)\n".utf8))
            exit(1)
        }
        let floodCount = Int(ProcessInfo.processInfo.environment["SENSORBRIDGE_BENCH_FLOOD"] ?? "") ?? 100_000
        if let reason = BleakPeer.unavailableReason {
            FileHandle.standardError.write(Data("sensorbridge-bench bluez: bleak skipped: \(reason)\n".utf8))
        }
        do {
            // One paced `record` phase with these options, alone: for a profiler (`perf record`).
            if let options = ProcessInfo.processInfo.environment["SENSORBRIDGE_BENCH_RECORD_ONLY"] {
                let phase = try phase(Load(count: 2000, rate: 200), .record(options.split(separator: " ").map(String.init)))
                print(String(format: "record %@ paced 200/s: %.1f µs per notification; ", options, phase.cpuPerNotification)
                    + describe(phase.threadCPU, per: phase.received))
                return
            }
            if ProcessInfo.processInfo.environment["SENSORBRIDGE_BENCH_RELAY_ONLY"] != nil {
                // Only the paced relay comparisons through AcquireNotify, for more pairs than a whole run takes.
                let load = Load(count: 2000, rate: 200)
                printRelays([
                    ("record --acquire-notify --relay", "record", try relayComparison(load, .record(["--acquire-notify", "--no-save"]))),
                    ("AcquireNotify floor relaying", "floor", try relayComparison(load, .floor(.acquireNotify))),
                ])
                return
            }
            let flood = try round(Load(count: floodCount, rate: nil))
            let paced = try round(Load(count: 2000, rate: 200))
            let idle = try phase(Load(count: 2, rate: nil), .record(["--no-save"]), idleAfterPlay: .seconds(10))
            let floor = HandOffFloor.cpuMicrosecondsPerMessage(count: 2000, rate: 200, handOff: .sampleRing)
            let pipeFloor = HandOffFloor.cpuMicrosecondsPerMessage(count: 2000, rate: 200, handOff: .pipe)
            let oneThreadFloor = HandOffFloor.cpuMicrosecondsPerMessage(count: 2000, rate: 200, handOff: .none)
            let idlePercent = idle.idleCPU / 10 * 100
            if json {
                var object: JSONObject = [:]
                for (name, phase, acquire) in [("", flood.record, false), ("AcquireNotify", flood.recordAcquireNotify, true),
                    ("Save", flood.recordSave, false)]
                {
                    var figures = recordFigures(phase, flood, acquireNotify: acquire)
                    figures["sent"] = .number(Double(phase.sent))
                    figures["perSecond"] = .number(phase.perSecond.rounded())
                    object["flood" + name] = .object(figures)
                }
                for (name, phase, acquire) in [("", paced.record, false), ("AcquireNotify", paced.recordAcquireNotify, true),
                    ("Save", paced.recordSave, false)]
                {
                    var figures = recordFigures(phase, paced, acquireNotify: acquire)
                    let latencies = phase.latencies.sorted()
                    figures["latencyP50Milliseconds"] = .number(rounded(percentile(latencies, 0.50), 3))
                    figures["latencyP99Milliseconds"] = .number(rounded(percentile(latencies, 0.99), 3))
                    figures["latencySamples"] = .number(Double(latencies.count))
                    figures["timesHandOffFloor"] = .number(rounded(phase.cpuPerNotification / floor, 1))
                    object["paced" + name] = .object(figures)
                }
                for (name, round) in [("flood", flood), ("paced", paced)] {
                    object[name + "Relay"] = .object(relayFigures(round.relay))
                    object[name + "RelayAcquireNotify"] = .object(relayFigures(round.relayAcquireNotify))
                    object[name + "RelayAcquireNotifyFloor"] = .object(relayFigures(round.relayFloor))
                }
                var peers: JSONObject = ["flood": .object(peerFigures(flood)), "paced": .object(peerFigures(paced))]
                if let reason = BleakPeer.unavailableReason { peers["bleakUnavailable"] = .string(reason) }
                object["peers"] = .object(peers)
                object["idleCPUPercent"] = .number(rounded(idlePercent, 2))
                object["handOffFloor"] = .object([
                    "twoThreadsMicrosecondsPerNotification": .number(rounded(floor, 1)),
                    "twoThreadsThroughPipeMicrosecondsPerNotification": .number(rounded(pipeFloor, 1)),
                    "oneThreadMicrosecondsPerNotification": .number(rounded(oneThreadFloor, 1)),
                ])
                Bench.printJSON(object)
            } else {
                print("flood: \(flood.record.sent) sent; µs CPU per notification, received, per second:")
                printRound(flood)
                print("paced 200/s for 10 s: µs CPU per notification, received:")
                printRound(paced)
                let latencies = paced.record.latencies.sorted()
                print(
                    "latency from the mock's send to the sample applied (zone update out): "
                        + String(format: "p50 %.3f ms, p99 %.3f ms (%d samples)", percentile(latencies, 0.5), percentile(latencies, 0.99),
                            latencies.count)
                        + latencySummary("with --acquire-notify", paced.recordAcquireNotify)
                        + latencySummary("with --save", paced.recordSave))
                print("idle 10 s: \(String(format: "%.2f", idlePercent)) % CPU")
                print(
                    String(
                        format: "floor at 200/s, a socket read and handed over with nothing else: %.1f µs per "
                            + "notification through SampleRing, %.1f µs through a pipe, %.1f µs with one thread; "
                            + "paced is %.1fx the SampleRing floor",
                        floor, pipeFloor, oneThreadFloor, paced.record.cpuPerNotification / floor))
            }
        } catch {
            FileHandle.standardError.write(Data("sensorbridge-bench bluez: \(error)\n".utf8))
            exit(1)
        }
    }

    /// `load` through each client in turn, each on a fresh mock: `record` with StartNotify, the D-Bus
    /// floor, bleak, `record --acquire-notify`, the AcquireNotify floor, bleak with AcquireNotify,
    /// and `record` saving into a store in a temporary folder.
    static func round(_ load: Load) throws -> Round {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-bluez-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bleak = BleakPeer.unavailableReason == nil
        return Round(
            record: try phase(load, .record(["--no-acquire-notify", "--no-save"])),
            dbusFloor: try phase(load, .floor(.startNotify)),
            bleak: try bleak ? phase(load, .bleak(acquireNotify: false)) : nil,
            recordAcquireNotify: try phase(load, .record(["--acquire-notify", "--no-save"])),
            acquireNotifyFloor: try phase(load, .floor(.acquireNotify)),
            bleakAcquireNotify: try bleak ? phase(load, .bleak(acquireNotify: true)) : nil,
            recordSave: try phase(
                load, .record(["--no-acquire-notify", "--store", folder.appendingPathComponent("workouts.sqlite").path])),
            relay: try relayComparison(load, .record(["--no-acquire-notify", "--no-save"])),
            relayAcquireNotify: try relayComparison(load, .record(["--acquire-notify", "--no-save"])),
            relayFloor: try relayComparison(load, .floor(.acquireNotify)))
    }

    /// `client` and it relaying (`record OPTIONS --relay Bench`, the floor sending each packet
    /// on) in adjacent pairs (`SENSORBRIDGE_BENCH_RELAY_PAIRS`, 9 by default), the first of each
    /// pair in turn.
    static func relayComparison(_ load: Load, _ client: Client) throws -> RelayComparison {
        let relaying: Client =
            switch client {
            case .record(let options): .record(options + ["--relay", "Bench"])
            case .floor(let subscription, _): .floor(subscription, relaying: true)
            case .bleak: preconditionFailure("bleak does not relay")
            }
        let count = max(Int(ProcessInfo.processInfo.environment["SENSORBRIDGE_BENCH_RELAY_PAIRS"] ?? "") ?? 9, 1)
        var pairs: [(plain: Phase, relay: Phase)] = []
        for index in 0..<count {
            if index % 2 == 0 {
                let plain = try phase(load, client)
                pairs.append((plain, try phase(load, relaying)))
            } else {
                let relay = try phase(load, relaying)
                pairs.append((try phase(load, client), relay))
            }
        }
        return RelayComparison(pairs: pairs)
    }

    /// A relay comparison's figures: the median pair's relaying phase, and the ratios.
    static func relayFigures(_ comparison: RelayComparison) -> JSONObject {
        let phase = comparison.median
        return [
            "received": .number(Double(phase.received)), "relayed": .number(Double(phase.relayed ?? 0)),
            "everyValueRelayed": .bool(comparison.everyValueRelayed), "leastRelayed": .string(comparison.leastRelayed),
            "cpuMicrosecondsPerNotification": .number(rounded(phase.cpuPerNotification, 1)),
            "cpuByThread": .string(describe(phase.threadCPU, per: phase.received)),
            "timesNotRelayingMedianOfPairs": .number(rounded(comparison.medianRatio, 2)),
            "addedMicrosecondsPerNotificationMedianOfPairs": .number(rounded(comparison.medianExtra, 1)),
            "pairRatios": .array(comparison.ratios.map { .number(rounded($0, 2)) }),
        ]
    }

    /// A `record` phase's figures and its ratios to the peers of the same load.
    static func recordFigures(_ phase: Phase, _ round: Round, acquireNotify: Bool) -> JSONObject {
        let cpu = phase.cpuPerNotification
        var figures: JSONObject = [
            "received": .number(Double(phase.received)),
            "cpuMicrosecondsPerNotification": .number(rounded(cpu, 1)),
            "cpuByThread": .string(describe(phase.threadCPU, per: phase.received)),
            "timesDBusFloor": .number(rounded(cpu / round.dbusFloor.cpuPerNotification, 2)),
            "timesRecord": .number(rounded(cpu / round.record.cpuPerNotification, 2)),
        ]
        if acquireNotify {
            figures["timesAcquireNotifyFloor"] = .number(rounded(cpu / round.acquireNotifyFloor.cpuPerNotification, 2))
            figures["timesRecordAcquireNotify"] = .number(rounded(cpu / round.recordAcquireNotify.cpuPerNotification, 2))
        }
        if let bleak = round.bleak { figures["timesBleak"] = .number(rounded(cpu / bleak.cpuPerNotification, 2)) }
        if acquireNotify, let bleak = round.bleakAcquireNotify {
            figures["timesBleakAcquireNotify"] = .number(rounded(cpu / bleak.cpuPerNotification, 2))
        }
        return figures
    }

    /// The peers' figures of one load.
    static func peerFigures(_ round: Round) -> JSONObject {
        var peers: JSONObject = [:]
        let named = [("dbusFloor", round.dbusFloor), ("acquireNotifyFloor", round.acquireNotifyFloor)]
            + [("bleak", round.bleak), ("bleakAcquireNotify", round.bleakAcquireNotify)].compactMap { name, phase in
                phase.map { (name, $0) }
            }
        for (name, phase) in named {
            peers[name] = .object([
                "received": .number(Double(phase.received)), "perSecond": .number(phase.perSecond.rounded()),
                "cpuMicrosecondsPerNotification": .number(rounded(phase.cpuPerNotification, 1)),
            ])
        }
        return peers
    }

    /// One load's table: each client's CPU per notification, received, rate, and `record`'s ratios.
    static func printRound(_ round: Round) {
        let floors = [("D-Bus floor", round.dbusFloor), ("AcquireNotify floor", round.acquireNotifyFloor)]
        let bleaks = [("bleak", round.bleak), ("bleak AcquireNotify", round.bleakAcquireNotify)]
        func times(_ phase: Phase, _ peers: [(String, Phase?)]) -> String {
            peers.compactMap { name, peer in
                peer.map { String(format: "%.2fx ", phase.cpuPerNotification / $0.cpuPerNotification) + name }
            }.joined(separator: ", ")
        }
        func row(_ name: String, _ phase: Phase, _ notes: String = "") {
            print(
                "  " + name.padding(toLength: 32, withPad: " ", startingAt: 0)
                    + String(format: "%7.1f µs %7d  ", phase.cpuPerNotification, phase.received)
                    + Bench.humanRate(phase.perSecond).padding(toLength: 10, withPad: " ", startingAt: 0)
                    + (notes.isEmpty ? "" : "  " + notes))
        }
        row("record", round.record, times(round.record, [floors[0], bleaks[0]]))
        row("record --acquire-notify", round.recordAcquireNotify, times(round.recordAcquireNotify, [floors[0], floors[1]] + bleaks))
        row("record --save", round.recordSave, times(round.recordSave, [floors[0], bleaks[0]]))
        printRelays([
            ("record --relay", "record", round.relay), ("record --acquire-notify --relay", "record", round.relayAcquireNotify),
            ("AcquireNotify floor relaying", "floor", round.relayFloor),
        ])
        for (name, phase) in floors { row(name, phase) }
        for (name, phase) in bleaks { if let phase { row(name, phase) } }
        for (name, phase) in [
            ("record", round.record), ("--acquire-notify", round.recordAcquireNotify), ("--save", round.recordSave),
            ("--relay", round.relay.median), ("--acquire-notify --relay", round.relayAcquireNotify.median),
        ] + floors + [("AcquireNotify floor relaying", round.relayFloor.median)]
        {
            print("  \(name) by thread: \(describe(phase.threadCPU, per: phase.received))")
        }
    }

    /// Each relay comparison's row: its median pair's relaying phase, the medians of the pairs'
    /// ratios and added microseconds, each pair's ratio, and whether every value was relayed.
    static func printRelays(_ relays: [(name: String, plain: String, comparison: RelayComparison)]) {
        for (name, plain, comparison) in relays {
            let phase = comparison.median
            print(
                "  " + name.padding(toLength: 32, withPad: " ", startingAt: 0)
                    + String(format: "%7.1f µs %7d  ", phase.cpuPerNotification, phase.received)
                    + Bench.humanRate(phase.perSecond).padding(toLength: 10, withPad: " ", startingAt: 0)
                    + String(format: "  %.2fx %@, +%.1f µs (medians of pairs; ratios ", comparison.medianRatio, plain, comparison.medianExtra)
                    + comparison.ratios.map { String(format: "%.2f", $0) }.joined(separator: ", ") + "), "
                    + (comparison.everyValueRelayed ? "every value relayed" : "not every value relayed (at worst \(comparison.leastRelayed))"))
        }
    }

    /// `; NAME p50 0.123 ms, p99 0.456 ms`.
    static func latencySummary(_ name: String, _ phase: Phase) -> String {
        let latencies = phase.latencies.sorted()
        return "; " + name + String(format: " p50 %.3f ms, p99 %.3f ms", percentile(latencies, 0.5), percentile(latencies, 0.99))
    }

    static func rounded(_ value: Double, _ digits: Int) -> Double {
        let scale = pow(10, Double(digits))
        return (value * scale).rounded() / scale
    }

    /// `count` notifications alternating between a strap and a power meter, `rate` per second
    /// (all at t = 0 when nil).
    static func trace(count: Int, rate: Double?) throws -> URL {
        var lines = [
            #"{"sensorbridge":"trace","version":1,"start":"2026-11-02T17:30:00Z","devices":{"hr":{"name":"HRM-Pro","address":"C4:7E:11:22:33:44"},"power":{"name":"Assioma","address":"E8:FE:6E:91:9F:16"}}}"#
        ]
        for i in 0..<count {
            let t = rate.map { Double(i) / $0 } ?? 0
            lines.append(
                i % 2 == 0
                    ? #"{"t":\#(t),"device":"hr","uuid":"2a37","hex":"06\#(String(format: "%02x", 100 + i % 80))"}"#
                    : #"{"t":\#(t),"device":"power","uuid":"2a63","hex":"2000\#(String(format: "%02x", 100 + i % 150))00e8fd0000"}"#)
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bench-bluez-\(UUID().uuidString).jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// A thread's time on a CPU and how many times it was put on one (its wake-ups, and its
    /// preemptions).
    struct ThreadUse {
        var seconds = 0.0
        var runs = 0
    }

    /// Microseconds of CPU per notification of each thread that used at least 1 µs, most first,
    /// with the times it ran per notification: `sb.dbus 98.1 (1.00 runs), sb.consumer 31.0 (0.51 runs)`.
    static func describe(_ threads: [String: ThreadUse], per count: Int) -> String {
        let count = Double(max(count, 1))
        return threads.filter { $0.value.seconds / count * 1e6 >= 1 }.sorted { $0.value.seconds > $1.value.seconds }
            .map { "\($0.key) " + String(format: "%.1f (%.2f runs)", $0.value.seconds / count * 1e6, Double($0.value.runs) / count) }
            .joined(separator: ", ")
    }

    /// Each thread of a process (this one by default), by thread id: its name
    /// (`/proc/PID/task/*/comm`: `sb.dbus`, `sb.consumer`, ...), its time on a CPU and the times it
    /// was run (`schedstat`'s first and third fields).
    static func threadCPUSeconds(process: String = "self") -> [Int: (name: String, use: ThreadUse)] {
        var threads: [Int: (name: String, use: ThreadUse)] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process)/task")) ?? [] {
            guard let id = Int(task),
                let stat = try? String(contentsOfFile: "/proc/\(process)/task/\(task)/schedstat", encoding: .utf8)
            else { continue }
            let fields = stat.split(separator: " ").map { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            guard fields.count == 3, let nanoseconds = fields[0], let runs = fields[2] else { continue }
            let comm = (try? String(contentsOfFile: "/proc/\(process)/task/\(task)/comm", encoding: .utf8)) ?? "?"
            threads[id] = (comm.trimmingCharacters(in: .whitespacesAndNewlines), ThreadUse(seconds: nanoseconds / 1e9, runs: Int(runs)))
        }
        return threads
    }

    /// Per thread name, what was used between two `threadCPUSeconds()` snapshots.
    static func threadCPU(from start: [Int: (name: String, use: ThreadUse)], to end: [Int: (name: String, use: ThreadUse)])
        -> [String: ThreadUse]
    {
        var byName: [String: ThreadUse] = [:]
        for (id, thread) in end {
            byName[thread.name, default: ThreadUse()].seconds += thread.use.seconds - (start[id]?.use.seconds ?? 0)
            byName[thread.name, default: ThreadUse()].runs += thread.use.runs - (start[id]?.use.runs ?? 0)
        }
        return byName
    }

    /// The `fraction` percentile of sorted nanoseconds, in milliseconds (nearest rank).
    static func percentile(_ sorted: [UInt64], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = min(Int((fraction * Double(sorted.count)).rounded(.up)), sorted.count) - 1
        return Double(sorted[max(rank, 0)]) / 1e6
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// `load` from a fresh mock to `client`: CPU from the first notification received until the
    /// last has arrived (or nothing more for a second), then `idleAfterPlay` with nothing sent.
    /// Every mock offers AcquireNotify; each client takes it or StartNotify. A paced load stamps
    /// each notification with its send time (`LatencyProbe`), for every client alike.
    static func phase(_ load: Load, _ client: Client, idleAfterPlay: Duration = .zero) throws -> Phase {
        let trace = try trace(count: load.count, rate: load.rate)
        defer { try? FileManager.default.removeItem(at: trace) }
        let paced = load.rate != nil
        // A relaying record has the mock's central subscribe to it; the mock counts what it relays.
        let recordRelaying = if case .record(let options) = client, options.contains("--relay") { true } else { false }
        let mock = try MockBlueZ(
            trace: trace, speed: paced ? 1 : 0, stamp: paced, acquireNotify: ["hr", "power"], bluez: "5.84",
            extra: recordRelaying ? ["--quiet-relay"] : [])
        defer { mock.stop() }
        let probe = paced ? LatencyProbe() : nil
        let peer: Peer
        switch client {
        case .record(let options): peer = record(mock, options, probe: probe)
        case .floor(let subscription, let relaying): peer = try floor(mock, subscription, relaying: relaying)
        case .bleak(let acquireNotify): peer = try BleakPeer.start(mock, acquireNotify: acquireNotify)
        }
        var result = Phase()
        do { try peer.waitForFirst() } catch {
            peer.stop()
            throw error
        }
        let cpuStart = peer.cpuSeconds()
        let threadsStart = threadCPUSeconds()
        let first = ContinuousClock.now
        // Blocks (waking five times a second): polling here would be CPU of this process too.
        result.sent = mock.waitUntilPlayed(timeout: .seconds(600)) ?? 0
        var last = ContinuousClock.now
        var seen = peer.received()
        // Until everything arrived, or nothing more for a second.
        while seen < result.sent, ContinuousClock.now - last < .seconds(1) {
            Thread.sleep(forTimeInterval: peer.interval)
            let now = peer.received()
            if now != seen {
                seen = now
                last = ContinuousClock.now
            }
        }
        result.cpu = peer.cpuSeconds() - cpuStart
        result.threadCPU = threadCPU(from: threadsStart, to: threadCPUSeconds())
        result.received = seen
        result.receiveSeconds = (last - first).seconds
        if idleAfterPlay > .zero {
            let idleStart = peer.cpuSeconds()
            Thread.sleep(forTimeInterval: idleAfterPlay.seconds)
            result.idleCPU = peer.cpuSeconds() - idleStart
        }
        peer.stop()
        result.relayed = peer.relayed()
        result.latencies = probe?.latencies ?? []
        return result
    }

    /// `sensorbridge record` on a thread of this process, stopped through its `RecordingControl`;
    /// its CPU is the whole process's.
    static func record(_ mock: MockBlueZ, _ options: [String], probe: LatencyProbe?) -> Peer {
        let control = RecordingControl(latencyProbe: probe)
        let finished = DispatchSemaphore(value: 0)
        let errors = Mutex("")
        let environment = mock.environment
        Thread.detachNewThread {
            var context = CommandContext(
                input: LineReader(text: ""), output: TextOutput(), errors: TextOutput(), environment: environment)
            context.recordingControl = control
            _ = SensorBridgeCLI.run(["record", "--hr", "HRM-Pro", "--power", "Assioma", "--json"] + options, context: context)
            errors.withLock { $0 = context.errors.text }
            finished.signal()
        }
        return Peer(
            waitForFirst: {
                while control.notificationsReceived == 0 {
                    if finished.wait(timeout: .now() + 0.0005) == .success {
                        finished.signal()
                        throw Failure(description: "record \(options.joined(separator: " ")) ended: \(errors.withLock { $0 })")
                    }
                }
            },
            received: { control.notificationsReceived },
            cpuSeconds: cpuSeconds,
            stop: {
                control.stop()
                finished.wait()
            },
            relayed: {
                guard options.contains("--relay") else { return nil }
                // The mock prints its central's count as it exits.
                mock.stopBlueZ()
                return mock.printedLine { $0.hasPrefix("relayed total ") }.flatMap { Int($0.dropFirst("relayed total ".count)) }
            })
    }

    /// A `NotificationFloor` on the mock's bus; its CPU is its receiving thread's.
    static func floor(_ mock: MockBlueZ, _ subscription: NotificationFloor.Subscription, relaying: Bool) throws -> Peer {
        let floor = try NotificationFloor(environment: mock.environment, subscription: subscription, relaying: relaying)
        return Peer(
            waitForFirst: {
                let deadline = ContinuousClock.now + .seconds(60)
                while floor.received == 0 {
                    guard ContinuousClock.now < deadline else { throw Failure(description: "the \(floor.threadName) floor received nothing") }
                    Thread.sleep(forTimeInterval: 0.0005)
                }
            },
            received: { floor.received },
            cpuSeconds: { floor.cpuSeconds },
            stop: floor.stop,
            relayed: { floor.relayed })
    }
}
