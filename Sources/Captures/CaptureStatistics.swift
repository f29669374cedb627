/// What a capture reader read, and what it skipped and why. Skips are counted, never fatal.
public struct CaptureStatistics: Sendable, Equatable {
    /// Records read.
    public var records = 0
    /// Notifications and indications yielded, with or without a known characteristic.
    public var notifications = 0
    /// Skipped packets, frames and PDUs by reason.
    public var skipped: [CaptureSkip: Int] = [:]

    public init() {}

    mutating func skip(_ reason: CaptureSkip, _ count: Int = 1) { skipped[reason, default: 0] += count }

    /// `2 fragments without a start, 1 notification on an undiscovered handle`, or nil when
    /// nothing was skipped.
    public var summary: String? {
        let parts = CaptureSkip.allCases.compactMap { reason in skipped[reason].map { "\($0) \(reason.phrase($0))" } }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}

/// Why part of a capture was skipped.
public enum CaptureSkip: String, Sendable, CaseIterable {
    /// The record holds only the start of its packet (included < original length).
    case snappedPacket
    /// An HCI packet shorter than its header, or whose length field disagrees with the record.
    case malformedPacket
    /// An ACL continuation fragment with no start fragment before it on its connection and direction.
    case fragmentWithoutStart
    /// A start fragment came before the previous L2CAP frame was complete; that frame was dropped.
    case incompleteFrame
    /// Fragments ran past the length the L2CAP header gave; the frame was dropped.
    case oversizedFrame
    /// An ATT PDU too short for its opcode, or with entries that do not add up.
    case malformedATT
    /// An ATT response with no matching request before it (the capture began mid-exchange).
    case unpairedResponse
    /// A notification on a handle that no discovery in the capture named and no assumed map
    /// gives (it is still yielded, with no UUID).
    case undiscoveredHandle
    /// Packets of connections beyond the number tracked at once.
    case connectionLimit
    /// Discovery entries beyond the number of attributes kept per database.
    case attributeLimit
    /// A `sensorbridge` log note that is not a trace line.
    case malformedNote
    /// The file ends inside its last record (a capture cut short); read as a trace, it ends before it.
    case cutShort

    func phrase(_ count: Int) -> String {
        let plural = count != 1
        switch self {
        case .snappedPacket: return plural ? "packets cut short by the capture" : "packet cut short by the capture"
        case .malformedPacket: return plural ? "malformed HCI packets" : "malformed HCI packet"
        case .fragmentWithoutStart: return plural ? "fragments without a start" : "fragment without a start"
        case .incompleteFrame: return plural ? "incomplete L2CAP frames" : "incomplete L2CAP frame"
        case .oversizedFrame:
            return plural ? "L2CAP frames longer than their header said" : "L2CAP frame longer than its header said"
        case .malformedATT: return plural ? "malformed ATT PDUs" : "malformed ATT PDU"
        case .unpairedResponse:
            return plural ? "ATT responses without their request" : "ATT response without its request"
        case .undiscoveredHandle:
            return (plural ? "notifications on handles" : "notification on a handle")
                + " no discovery named (give --handle HANDLE=UUID, such as --handle 0x0012=2a37)"
        case .connectionLimit:
            return plural ? "packets beyond the connection limit" : "packet beyond the connection limit"
        case .attributeLimit:
            return plural ? "attributes beyond the database limit" : "attribute beyond the database limit"
        case .malformedNote: return plural ? "malformed sensorbridge notes" : "malformed sensorbridge note"
        case .cutShort: return plural ? "records cut short at the end of the file" : "record cut short at the end of the file"
        }
    }
}
