import Captures
import Foundation
import GATT
import SensorCore
import SensorTestSupport

/// `sensorbridge-bench btsnoop`: btsnoop parsing throughput (HCI records to decoded-handle
/// notifications, reading the file) on a generated ~50 MB capture, beside
/// `tshark -r FILE -Y btatt.opcode==0x1b` on the same file in the same run.
///
/// Throughput is megabytes per CPU second (user + system) of each side, the best of ten parses and
/// of two tshark runs, so that other work on a shared machine tilts the ratio less; the wall times
/// are printed too.
///
/// The capture: three sensors on one controller (a heart-rate strap 2A37, a power meter with 2A63
/// and the vector 2A64, a speed and cadence sensor 2A5B), each connected and discovered as BlueZ
/// does, then their notifications interleaved; ACL fragments of 27 bytes (a controller without
/// data length extension), so every vector notification comes in two fragments.
enum BtsnoopBenchmark {
    static let targetBytes = 50_000_000

    static func makeCapture() -> (bytes: [UInt8], notifications: Int) {
        var w = HCITrafficWriter()
        w.aclFragmentSize = 27
        var time = BtsnoopTime(Date(timeIntervalSince1970: 1_795_935_600))
        let sensors: [(handle: UInt16, address: UInt64, characteristics: [BluetoothUUID])] = [
            (0x0040, 0xC47E_1122_3344, [.heartRateMeasurement]),
            (0x0041, 0xE8FE_6E91_9F16, [.cyclingPowerMeasurement, .cyclingPowerVector]),
            (0x0042, 0xF1C5_0A0B_0C0D, [.cscMeasurement]),
        ]
        w.addController(address: BluetoothAddress(0x001A_7DDA_7113), at: time)
        var handles: [(link: UInt16, attribute: UInt16, uuid: BluetoothUUID)] = []
        for (index, sensor) in sensors.enumerated() {
            let layout = GATTServerLayout(
                characteristics: sensor.characteristics, firstHandle: UInt16(0x0010 + 0x0100 * index))
            w.connect(handle: sensor.handle, peer: BluetoothAddress(sensor.address), addressType: 0, at: time)
            w.discover(layout, handle: sensor.handle, at: time)
            for uuid in sensor.characteristics { handles.append((sensor.handle, layout.valueHandle(of: uuid)!, uuid)) }
        }
        var bytes = w.takeBytes()
        var rng = SplitMix64(seed: 2001)
        var notifications = 0
        var revolutions: UInt16 = 0
        while bytes.count < targetBytes {
            for (link, attribute, uuid) in handles {
                time = time.adding(.milliseconds(50))
                let noise = UInt8(truncatingIfNeeded: rng.next() & 0x0F)
                revolutions &+= 1
                let value: [UInt8] =
                    switch uuid.shortValue {
                    case 0x2A37: [0x16, 120 + noise, 0x10, 0x03, 0x08, 0x03]
                    case 0x2A63:
                        [
                            0x20, 0x00, 0xC8 &+ noise, 0x00, UInt8(revolutions & 0xFF), UInt8(revolutions >> 8), 0x00,
                            0x28,
                        ]
                    case 0x2A64: [0x04] + (0..<12).flatMap { _ in [UInt8(truncatingIfNeeded: rng.next()), 0x01] }
                    default: [0x02, UInt8(revolutions & 0xFF), UInt8(revolutions >> 8), 0x00, 0x28]
                    }
                w.notify(handle: link, attribute: attribute, value: value, at: time)
                notifications += 1
            }
            bytes += w.takeBytes()
        }
        return (bytes, notifications)
    }

    /// Notifications with a discovered characteristic in the capture at `url`.
    static func parse(_ url: URL) -> Int {
        guard let reader = try? BtsnoopReader(contentsOf: url) else { fatalError("cannot open \(url.path)") }
        var count = 0
        do {
            while let event = try reader.next() {
                if case .notification(let n) = event.kind, n.uuid != nil { count += 1 }
            }
        } catch {
            fatalError("the generated capture does not read: \(error)")
        }
        return count
    }

    /// The `tshark` on the PATH.
    static var tshark: URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("tshark") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs `tshark -r FILE -Y btatt.opcode==0x1b` once: its CPU and wall time and its output's
    /// line count.
    static func runTshark(_ tshark: URL, _ capture: URL) -> (cpuSeconds: Double, seconds: Double, lines: Int) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-bench-tshark.txt")
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
            fatalError("cannot create \(output.path)")
        }
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = tshark
        process.arguments = ["-r", capture.path, "-Y", "btatt.opcode==0x1b"]
        process.standardOutput = FileHandle(forWritingAtPath: output.path)
        process.standardError = FileHandle.nullDevice
        let cpuBefore = cpuSeconds(RUSAGE_CHILDREN)
        let start = ContinuousClock.now
        do {
            try ChildLaunch.run(process)
        } catch {
            fatalError("cannot run \(tshark.path): \(error)")
        }
        process.waitUntilExit()
        let seconds = (ContinuousClock.now - start).seconds
        guard process.terminationStatus == 0 else {
            fatalError("tshark failed with status \(process.terminationStatus)")
        }
        let text = [UInt8]((try? Data(contentsOf: output)) ?? Data())
        return (cpuSeconds(RUSAGE_CHILDREN) - cpuBefore, seconds, text.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 })
    }

    /// User + system CPU seconds of this process (`RUSAGE_SELF`) or of its waited-for children.
    static func cpuSeconds(_ who: __rusage_who) -> Double {
        var usage = rusage()
        getrusage(who.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(
            usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    static func run(json: Bool) {
        guard let tshark else {
            FileHandle.standardError.write(
                Data(
                    "btsnoop: this benchmark compares with Wireshark's tshark, which is not installed; install it with: sudo apt-get install tshark\n"
                        .utf8))
            exit(1)
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sensorbridge-bench-\(getpid()).btsnoop")
        let (bytes, notifications) = makeCapture()
        do {
            try Data(bytes).write(to: url)
        } catch {
            fatalError("cannot write \(url.path): \(error)")
        }
        defer { try? FileManager.default.removeItem(at: url) }
        let megabytes = Double(bytes.count) / 1e6

        var best = (cpu: Double.infinity, wall: Double.infinity)
        for _ in 0..<10 {
            let cpuBefore = cpuSeconds(RUSAGE_SELF)
            let start = ContinuousClock.now
            let found = parse(url)
            let wall = (ContinuousClock.now - start).seconds
            best = (min(best.cpu, cpuSeconds(RUSAGE_SELF) - cpuBefore), min(best.wall, wall))
            guard found == notifications else { fatalError("parsed \(found) notifications, wrote \(notifications)") }
        }
        // tshark's best of two runs (each takes seconds), as ours is the best of ten.
        let theirs = [runTshark(tshark, url), runTshark(tshark, url)].min { $0.cpuSeconds < $1.cpuSeconds }!
        if theirs.lines != notifications {
            FileHandle.standardError.write(
                Data("btsnoop: tshark listed \(theirs.lines) notifications, the capture holds \(notifications)\n".utf8))
        }
        let ours = megabytes / best.cpu
        let tsharkRate = megabytes / theirs.cpuSeconds
        if json {
            Bench.printJSON([
                "megabytesPerSecond": .number((ours * 10).rounded() / 10),
                "tsharkMegabytesPerSecond": .number((tsharkRate * 100).rounded() / 100),
                "ratio": .number((ours / tsharkRate * 10).rounded() / 10),
            ])
        } else {
            print(
                String(
                    format: "btsnoop: a generated %.1f MB capture, %d notifications on 3 links (27-byte ACL fragments)",
                    megabytes, notifications))
            print("  MB per CPU second (wall time in brackets)")
            print(
                String(
                    format: "  SensorBridge  %8.1f MB/s  BtsnoopReader over the file, best of 10: %.3f s CPU (%.3f s)",
                    ours, best.cpu, best.wall))
            print(
                String(
                    format:
                        "  tshark        %8.2f MB/s  tshark -r FILE -Y btatt.opcode==0x1b, best of 2: %.1f s CPU (%.1f s)",
                    tsharkRate, theirs.cpuSeconds, theirs.seconds))
            print(String(format: "  ratio         %8.0fx      target >= 100x", ours / tsharkRate))
        }
    }
}
