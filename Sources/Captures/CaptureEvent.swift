public import GATT
public import SensorCore

/// What `BtsnoopReader` finds in a capture, in record order: link events, notifications and
/// indications, and log notes.
public struct CaptureEvent: Sendable, Equatable {
    /// The record (1-based; Wireshark's frame number) that completed the event.
    public var record: Int
    public var time: BtsnoopTime
    public var kind: Kind

    public enum Kind: Sendable, Equatable {
        /// LE Connection Complete or LE Enhanced Connection Complete (v1, v2) with status success
        /// (Core Specification Vol 4 Part E 7.7.65.1, 7.7.65.10).
        case connected(CaptureConnection)
        /// Disconnection Complete with status success (Vol 4 Part E 7.7.5), with its reason code;
        /// nil when the controller itself went away (monitor Delete Index).
        case disconnected(CaptureConnection, reason: UInt8?)
        /// An ATT Handle Value Notification or Indication (Vol 3 Part F 3.4.7), or one value of a
        /// Multiple Handle Value Notification.
        case notification(ATTNotification)
        /// A monitor log line (`btmon` shows them between packets): user logging with its ident,
        /// or a system note (empty ident).
        case note(ident: String, message: String)
    }

    public init(record: Int, time: BtsnoopTime, kind: Kind) {
        self.record = record
        self.time = time
        self.kind = kind
    }
}

/// An LE connection as the capture shows it.
public struct CaptureConnection: Sendable, Hashable {
    /// 1-based, in order of appearance in the capture: tells apart connections that reuse a handle.
    public var number: Int
    /// Controller index (`hci0` is 0); always 0 for datalinks 1001 and 1002.
    public var adapter: UInt16
    /// The HCI connection handle (12 bits).
    public var handle: UInt16
    /// The peer's address, when the capture holds the connection's start.
    public var peer: BluetoothAddress?
    /// The peer's address type: 0 public, 1 random, 2 and 3 resolved identities.
    public var peerAddressType: UInt8?
    /// Whether this host is the central (it initiated the connection); nil when not known.
    public var isCentral: Bool?

    public init(
        number: Int, adapter: UInt16, handle: UInt16, peer: BluetoothAddress? = nil, peerAddressType: UInt8? = nil,
        isCentral: Bool? = nil
    ) {
        self.number = number
        self.adapter = adapter
        self.handle = handle
        self.peer = peer
        self.peerAddressType = peerAddressType
        self.isCentral = isCentral
    }
}

/// A characteristic value a GATT server pushed (Core Specification Vol 3 Part F 3.4.7, Part G 4.10-4.11).
public struct ATTNotification: Sendable, Equatable {
    public var connection: CaptureConnection
    /// `.received` for values the peer sent (the sensor case); `.sent` for values this host's own
    /// GATT server sent.
    public var direction: HCIDirection
    /// The characteristic value's attribute handle.
    public var handle: UInt16
    /// The characteristic, from the discovery in the capture or an assumed handle map; nil when
    /// neither names the handle.
    public var uuid: BluetoothUUID?
    /// The characteristic value: a slice of the reader's buffer, so that reading costs no
    /// allocation per notification. Its indices are the buffer's (use `value.startIndex`, or
    /// `Array(value)`), and keeping it keeps that buffer (up to a megabyte) alive: copy it with
    /// `Array(value)` to keep it long on its own.
    public var value: ArraySlice<UInt8>
    /// An indication (the client confirms it) rather than a notification.
    public var isIndication: Bool

    public init(
        connection: CaptureConnection, direction: HCIDirection, handle: UInt16, uuid: BluetoothUUID?,
        value: ArraySlice<UInt8>,
        isIndication: Bool = false
    ) {
        self.connection = connection
        self.direction = direction
        self.handle = handle
        self.uuid = uuid
        self.value = value
        self.isIndication = isIndication
    }
}
