import Foundation
import SampleRing
import SensorCore
import Synchronization

/// The floor under the `bluez` benchmark's CPU per notification on this machine: the design's
/// live path with nothing in it. A sender thread writes a 200-byte message (the size of a
/// characteristic's `PropertiesChanged` signal) every `1 / rate` seconds into a unix stream
/// socket; a reader thread waits in `poll`, reads each message with `recv` and pushes a `Sample`
/// into a `SampleRing`, from which the consumer thread, parked in the ring, takes it. No D-Bus,
/// no decoding, no workout: only the two wake-ups per notification and the system calls around
/// them. Beside it, the same hand-off through a pipe the consumer waits on with `poll` (the
/// obvious way), and no hand-off: the reader keeps the message (one thread, one wake-up), which
/// is what the 60 µs would need the threading model to become.
enum HandOffFloor {
    enum HandOff {
        case sampleRing
        case pipe
        case none
    }

    /// Microseconds of CPU per message of the reader and the consumer (the sender's is not counted).
    static func cpuMicrosecondsPerMessage(count: Int, rate: Double, handOff: HandOff) -> Double {
        var sockets: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &sockets) == 0 else { return .nan }
        defer { sockets.forEach { close($0) } }
        let (reading, writing) = (sockets[0], sockets[1])
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { return .nan }
        defer { pipeEnds.forEach { close($0) } }
        let (pipeOut, pipeIn) = (pipeEnds[0], pipeEnds[1])
        let ring = SampleRing<Sample>(capacity: 1024)
        let readerCPU = Mutex(Duration.zero), consumerCPU = Mutex(Duration.zero)
        var threads = [DispatchSemaphore]()
        threads.append(Bench.startThread {
            let period = Duration.seconds(1 / rate)
            var next = ContinuousClock.now
            let message = [UInt8](repeating: 0x5a, count: 200)
            for _ in 0 ..< count {
                next += period
                Thread.sleep(until: next)
                _ = message.withUnsafeBytes { send(writing, $0.baseAddress, $0.count, 0) }
            }
        })
        threads.append(Bench.startThread {
            let start = Bench.threadCPUTime()
            var buffer = [UInt8](repeating: 0, count: 4096)
            var bytes = 0
            var entry = pollfd(fd: reading, events: Int16(POLLIN), revents: 0)
            while bytes < count * 200 {
                _ = poll(&entry, 1, -1)
                let read = buffer.withUnsafeMutableBytes { recv(reading, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                guard read > 0 else { continue }
                for message in bytes / 200 ..< (bytes + read) / 200 {
                    switch handOff {
                    case .sampleRing:
                        ring.push(Sample(sensor: SensorID(1), type: .heartRate, value: Double(message), time: .zero))
                    case .pipe:
                        var token: UInt8 = 1
                        _ = write(pipeIn, &token, 1)
                    case .none: break
                    }
                }
                bytes += read
            }
            readerCPU.withLock { $0 = Bench.threadCPUTime() - start }
        })
        if handOff != .none {
            threads.append(Bench.startThread {
                let start = Bench.threadCPUTime()
                var taken = 0
                var tokens = [UInt8](repeating: 0, count: 64)
                var entry = pollfd(fd: pipeOut, events: Int16(POLLIN), revents: 0)
                while taken < count {
                    if handOff == .pipe {
                        _ = poll(&entry, 1, 5000)
                        taken += max(0, tokens.withUnsafeMutableBytes { read(pipeOut, $0.baseAddress, $0.count) })
                    } else {
                        _ = ring.wait(timeout: .seconds(5))
                        while ring.pop() != nil { taken += 1 }
                    }
                }
                consumerCPU.withLock { $0 = Bench.threadCPUTime() - start }
            })
        }
        for thread in threads { thread.wait() }
        return (readerCPU.withLock { $0 } + consumerCPU.withLock { $0 }).seconds / Double(count) * 1e6
    }
}

extension Thread {
    /// Sleeps until `instant` of the continuous clock; returns at once when it has passed.
    fileprivate static func sleep(until instant: ContinuousClock.Instant) {
        let left = instant - .now
        if left > .zero { sleep(forTimeInterval: left.seconds) }
    }
}
