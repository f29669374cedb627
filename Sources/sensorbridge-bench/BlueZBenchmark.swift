import Session
import Foundation
import SensorBridge
import SensorCore
import SensorTestSupport
import Synchronization

/// `bluez`: `record` in this process against a private dbus-daemon and the mock org.bluez
/// (python-dbusmock), which it starts itself. Flood: two sensors sending as fast as the mock and
/// the bus allow; paced: 200 notifications per second for 10 s, CPU time of this process per
/// notification, and the latency from the mock's send (stamped in the payload) to the sample
/// applied by the session, also with `--acquire-notify` (sockets instead of signals); idle:
/// connected sensors that send nothing for 10 s; then `HandOffFloor`, the same path with nothing in it.
enum BlueZBenchmark {
    static func run(_ json: Bool) {
        if let reason = MockBlueZ.unavailableReason {
            FileHandle.standardError.write(Data("sensorbridge-bench bluez: \(reason)\n".utf8))
            exit(1)
        }
        let floodCount = Int(ProcessInfo.processInfo.environment["SENSORBRIDGE_BENCH_FLOOD"] ?? "") ?? 100_000
        do {
            let flood = try phase(trace: trace(count: floodCount, rate: nil), speed: 0, idleAfterPlay: .zero)
            let paced = try phase(trace: trace(count: 2000, rate: 200), speed: 1, idleAfterPlay: .zero, stamp: true)
            // The same through AcquireNotify sockets (record --acquire-notify): no D-Bus message per value.
            let acquired = try phase(
                trace: trace(count: 2000, rate: 200), speed: 1, idleAfterPlay: .zero, stamp: true, acquireNotify: true)
            let idle = try phase(trace: trace(count: 2, rate: nil), speed: 0, idleAfterPlay: .seconds(10))
            let floor = HandOffFloor.cpuMicrosecondsPerMessage(count: 2000, rate: 200, handOff: .sampleRing)
            let pipeFloor = HandOffFloor.cpuMicrosecondsPerMessage(count: 2000, rate: 200, handOff: .pipe)
            let oneThreadFloor = HandOffFloor.cpuMicrosecondsPerMessage(count: 2000, rate: 200, handOff: .none)
            let cpuPerNotification = paced.cpu / Double(max(paced.received, 1)) * 1e6
            let acquiredCPU = acquired.cpu / Double(max(acquired.received, 1)) * 1e6
            let acquiredLatencies = acquired.latencies.sorted()
            let idlePercent = idle.idleCPU / 10 * 100
            let latencies = paced.latencies.sorted()
            let p50 = percentile(latencies, 0.50)
            let p99 = percentile(latencies, 0.99)
            if json {
                Bench.printJSON([
                    "flood": .object([
                        "sent": .number(Double(flood.sent)), "received": .number(Double(flood.received)),
                        "perSecond": .number((Double(flood.received) / flood.receiveSeconds).rounded()),
                    ]),
                    "paced": .object([
                        "cpuMicrosecondsPerNotification": .number((cpuPerNotification * 10).rounded() / 10),
                        "latencyP50Milliseconds": .number((p50 * 1000).rounded() / 1000),
                        "latencyP99Milliseconds": .number((p99 * 1000).rounded() / 1000),
                        "latencySamples": .number(Double(latencies.count)),
                        "cpuByThread": .string(describe(paced.threadCPU, per: paced.received)),
                        "timesHandOffFloor": .number((cpuPerNotification / floor * 10).rounded() / 10),
                    ]),
                    "pacedAcquireNotify": .object([
                        "cpuMicrosecondsPerNotification": .number((acquiredCPU * 10).rounded() / 10),
                        "latencyP50Milliseconds": .number((percentile(acquiredLatencies, 0.50) * 1000).rounded() / 1000),
                        "latencyP99Milliseconds": .number((percentile(acquiredLatencies, 0.99) * 1000).rounded() / 1000),
                        "cpuByThread": .string(describe(acquired.threadCPU, per: acquired.received)),
                    ]),
                    "idleCPUPercent": .number((idlePercent * 100).rounded() / 100),
                    "handOffFloor": .object([
                        "twoThreadsMicrosecondsPerNotification": .number((floor * 10).rounded() / 10),
                        "twoThreadsThroughPipeMicrosecondsPerNotification": .number((pipeFloor * 10).rounded() / 10),
                        "oneThreadMicrosecondsPerNotification": .number((oneThreadFloor * 10).rounded() / 10),
                    ]),
                ])
            } else {
                print("flood: \(flood.sent) sent, \(flood.received) received, \(Bench.humanRate(Double(flood.received) / flood.receiveSeconds))")
                print("paced 200/s: \(String(format: "%.1f", cpuPerNotification)) µs CPU per notification (\(paced.received) received; by thread: \(describe(paced.threadCPU, per: paced.received)))")
                print(
                    "paced 200/s with --acquire-notify: \(String(format: "%.1f", acquiredCPU)) µs CPU per notification, "
                        + String(
                            format: "latency p50 %.3f ms, p99 %.3f ms", percentile(acquiredLatencies, 0.5),
                            percentile(acquiredLatencies, 0.99)) + "; by thread: \(describe(acquired.threadCPU, per: acquired.received))")
                print("idle 10 s: \(String(format: "%.2f", idlePercent)) % CPU")
                print(
                    String(
                        format: "floor at 200/s, a socket read and handed over with nothing else: %.1f µs per "
                            + "notification through SampleRing, %.1f µs through a pipe, %.1f µs with one thread; "
                            + "paced is %.1fx the SampleRing floor",
                        floor, pipeFloor, oneThreadFloor, cpuPerNotification / floor))
                print(
                    "latency from the mock's send to the sample applied (zone update out): "
                        + String(format: "p50 %.3f ms, p99 %.3f ms (%d samples)", p50, p99, latencies.count))
            }
        } catch {
            FileHandle.standardError.write(Data("sensorbridge-bench bluez: \(error)\n".utf8))
            exit(1)
        }
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

    struct Phase {
        var sent = 0
        var received = 0
        /// From the first notification received to the last.
        var receiveSeconds = 0.0
        /// CPU seconds of this process while the mock played.
        var cpu = 0.0
        /// CPU seconds of this process during `idleAfterPlay`.
        var idleCPU = 0.0
        /// Nanoseconds from the mock's send to the sample applied, with `stamp`.
        var latencies: [UInt64] = []
        /// CPU seconds of this process's threads while the mock played, by thread name.
        var threadCPU: [String: Double] = [:]
    }

    /// Microseconds of CPU per notification of each thread that used at least 1 µs, most first:
    /// `dbus 98.1, consumer 31.0, ...`.
    static func describe(_ threads: [String: Double], per count: Int) -> String {
        threads.map { ($0.key, $0.value / Double(max(count, 1)) * 1e6) }.filter { $0.1 >= 1 }.sorted { $0.1 > $1.1 }
            .map { "\($0.0) \(String(format: "%.1f", $0.1))" }.joined(separator: ", ")
    }

    /// CPU seconds of each thread of this process, by thread id: its name (`/proc/self/task/*/comm`:
    /// `sb.dbus`, `sb.consumer`, ...) and time on a CPU (`schedstat`'s first field, nanoseconds).
    static func threadCPUSeconds() -> [Int: (name: String, seconds: Double)] {
        var threads: [Int: (name: String, seconds: Double)] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? [] {
            guard let id = Int(task),
                let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/schedstat", encoding: .utf8),
                let nanoseconds = stat.split(separator: " ").first.flatMap({ Double($0) })
            else { continue }
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? "?"
            let name = comm.trimmingCharacters(in: .whitespacesAndNewlines)
            threads[id] = (name, nanoseconds / 1e9)
        }
        return threads
    }

    /// Per thread name, the CPU seconds used between two `threadCPUSeconds()` snapshots.
    static func threadCPU(from start: [Int: (name: String, seconds: Double)], to end: [Int: (name: String, seconds: Double)])
        -> [String: Double]
    {
        var byName: [String: Double] = [:]
        for (id, thread) in end { byName[thread.name, default: 0] += thread.seconds - (start[id]?.seconds ?? 0) }
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

    static func phase(
        trace: URL, speed: Double, idleAfterPlay: Duration, stamp: Bool = false, acquireNotify: Bool = false
    ) throws -> Phase {
        defer { try? FileManager.default.removeItem(at: trace) }
        let mock = try MockBlueZ(trace: trace, speed: speed, stamp: stamp, acquireNotify: acquireNotify ? ["hr", "power"] : [])
        defer { mock.stop() }
        let probe = stamp ? LatencyProbe() : nil
        let control = RecordingControl(latencyProbe: probe)
        let finished = DispatchSemaphore(value: 0)
        let environment = mock.environment
        Thread.detachNewThread {
            var context = CommandContext(
                input: LineReader(text: ""), output: TextOutput(), errors: TextOutput(), environment: environment)
            context.recordingControl = control
            _ = SensorBridgeCLI.run(
                ["record", "--hr", "HRM-Pro", "--power", "Assioma", "--json", "--no-save"] + (acquireNotify ? ["--acquire-notify"] : []),
                context: context)
            finished.signal()
        }
        var result = Phase()
        // CPU from the first notification on (connecting is not what is measured).
        while control.notificationsReceived == 0 { Thread.sleep(forTimeInterval: 0.0005) }
        let cpuStart = cpuSeconds()
        let threadsStart = threadCPUSeconds()
        let first = ContinuousClock.now
        // Blocks (waking five times a second): polling here would be CPU of this process too.
        result.sent = mock.waitUntilPlayed(timeout: .seconds(600)) ?? 0
        var last = ContinuousClock.now
        var seen = control.notificationsReceived
        // Until everything arrived, or nothing more for a second.
        while seen < result.sent, ContinuousClock.now - last < .seconds(1) {
            Thread.sleep(forTimeInterval: 0.002)
            let now = control.notificationsReceived
            if now != seen {
                seen = now
                last = ContinuousClock.now
            }
        }
        result.cpu = cpuSeconds() - cpuStart
        result.threadCPU = threadCPU(from: threadsStart, to: threadCPUSeconds())
        result.received = control.notificationsReceived
        result.receiveSeconds = (last - first).seconds
        if idleAfterPlay > .zero {
            let idleStart = cpuSeconds()
            Thread.sleep(forTimeInterval: idleAfterPlay.seconds)
            result.idleCPU = cpuSeconds() - idleStart
        }
        control.stop()
        finished.wait()
        result.latencies = probe?.latencies ?? []
        return result
    }
}
