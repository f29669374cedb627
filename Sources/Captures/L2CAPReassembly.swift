/// Reassembles one L2CAP basic frame (Core Specification Vol 3 Part A 3.1: 16-bit length, 16-bit
/// channel ID, payload) from the HCI ACL fragments of one connection and direction (Vol 4 Part E
/// 5.4.2: a start fragment, then continuation fragments). Holds at most one frame: 65,539 bytes.
struct L2CAPReassembly {
    /// The frame so far. Its storage is kept between frames when small.
    private(set) var frame: [UInt8] = []
    /// The whole frame's length including its 4-byte header; 0 until the header has arrived.
    private var expected = 0

    /// The longest frame a 16-bit length allows, with its header.
    static let maximumFrame = 4 + 0xFFFF

    enum Outcome {
        /// The frame is complete: `frame` holds it; `clear()` after use.
        case complete
        /// More fragments are needed.
        case pending
        /// The fragments did not make a frame; what was held is dropped.
        case dropped(CaptureSkip)
    }

    var inProgress: Bool { !frame.isEmpty }

    /// A start fragment that does not hold its whole frame (the parser handles whole frames in
    /// place). A frame still in progress is dropped, and the caller counts it.
    mutating func start(_ bytes: [UInt8], _ range: Range<Int>) -> Outcome {
        clear()
        return add(bytes, range)
    }

    /// A continuation fragment.
    mutating func append(_ bytes: [UInt8], _ range: Range<Int>) -> Outcome {
        guard inProgress else { return .dropped(.fragmentWithoutStart) }
        return add(bytes, range)
    }

    /// Empties the reassembly for the next frame, keeping a small buffer for it.
    mutating func clear() {
        if frame.capacity > 4096 { frame = [] } else { frame.removeAll(keepingCapacity: true) }
        expected = 0
    }

    private mutating func add(_ bytes: [UInt8], _ range: Range<Int>) -> Outcome {
        guard frame.count + range.count <= (expected > 0 ? expected : Self.maximumFrame) else {
            clear()
            return .dropped(.oversizedFrame)
        }
        frame.append(contentsOf: bytes[range])
        if expected == 0, frame.count >= 2 { expected = 4 + Int(UInt16(frame[0]) | UInt16(frame[1]) << 8) }
        guard expected > 0 else { return .pending }
        if frame.count == expected { return .complete }
        if frame.count > expected {
            clear()
            return .dropped(.oversizedFrame)
        }
        return .pending
    }
}
