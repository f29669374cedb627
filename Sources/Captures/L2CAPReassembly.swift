/// Reassembles one L2CAP basic frame (Core Specification Vol 3 Part A 3.1: 16-bit length, 16-bit
/// channel ID, payload) from the HCI ACL fragments of one connection and direction (Vol 4 Part E
/// 5.4.2: a start fragment, then continuation fragments). Holds at most one frame: 65,539 bytes.
struct L2CAPReassembly {
    private var buffer: [UInt8] = []
    /// The whole frame's length including its 4-byte header; 0 until the header has arrived.
    private var expected = 0

    enum Outcome {
        /// The frame is complete; `take()` hands it over.
        case complete
        /// More fragments are needed.
        case pending
        /// The fragments did not make a frame; what was held is dropped.
        case dropped(CaptureSkip)
    }

    var inProgress: Bool { !buffer.isEmpty }

    /// A start fragment that does not hold its whole frame (the parser handles whole frames in
    /// place). A frame still in progress is dropped, and the caller counts it.
    mutating func start(_ bytes: [UInt8], _ range: Range<Int>) -> Outcome {
        buffer.removeAll(keepingCapacity: true)
        buffer.append(contentsOf: bytes[range])
        expected = 0
        return settle()
    }

    /// A continuation fragment.
    mutating func append(_ bytes: [UInt8], _ range: Range<Int>) -> Outcome {
        guard inProgress else { return .dropped(.fragmentWithoutStart) }
        // Never hold more than the longest frame a 16-bit length allows.
        guard buffer.count + range.count <= (expected > 0 ? expected : 4 + 0xFFFF) else {
            reset()
            return .dropped(.oversizedFrame)
        }
        buffer.append(contentsOf: bytes[range])
        return settle()
    }

    /// The complete frame; the reassembly is empty afterwards.
    mutating func take() -> [UInt8] {
        defer { reset() }
        return buffer
    }

    mutating func reset() {
        buffer = []
        expected = 0
    }

    private mutating func settle() -> Outcome {
        if expected == 0, buffer.count >= 2 { expected = 4 + Int(UInt16(buffer[0]) | UInt16(buffer[1]) << 8) }
        guard expected > 0 else { return .pending }
        if buffer.count == expected { return .complete }
        if buffer.count > expected {
            reset()
            return .dropped(.oversizedFrame)
        }
        return .pending
    }
}
