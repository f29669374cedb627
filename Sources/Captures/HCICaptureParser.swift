import GATT
import SensorCore

/// The state machine behind `BtsnoopReader`: one btsnoop record in, capture events out.
///
/// HCI packets by datalink → ACL fragments reassembled per connection and direction → L2CAP
/// frames → the ATT channel (CID 0x0004) → notifications, with the characteristic of each handle
/// taken from the discovery earlier in the capture. Pure: no I/O; what it keeps is bounded (512
/// live connections and handle tables, 1024 peer and 1024 local server databases of 8192
/// attributes, one L2CAP frame per connection and direction).
struct HCICaptureParser {
    let datalink: BtsnoopDatalink
    /// Characteristics of handles no discovery named (`--handle 0x0012=2a37`), for every connection.
    let assumedHandles: [UInt16: BluetoothUUID]
    private(set) var statistics = CaptureStatistics()

    /// Connections in slots (a vacant slot holds a connection that is not live), found through
    /// each controller's table of handles.
    private var connections: [Connection] = []
    private var freeSlots: [Int] = []
    private var liveConnections = 0
    /// Per controller, the slot of each 12-bit connection handle (-1 for none).
    private var handleTables: [(adapter: UInt16, slots: [Int32])] = []
    private var lastTable = 0
    private var connectionCount = 0
    /// GATT servers by index: the peers' (by address, kept across reconnections as BlueZ's GATT
    /// cache keeps them, or by connection when the capture missed the connection's start), and
    /// this host's own on each controller. Connections hold the indices of theirs.
    private var databases: [GATTDatabase] = []
    private var freeDatabases: [Int] = []
    private var remoteDatabaseIndex: [PeerKey: Int] = [:]
    private var localDatabaseIndex: [UInt16: Int] = [:]

    /// Events completed and not handed out yet, the next one last (most records complete one
    /// event or none).
    private var pending: [CaptureEvent] = []

    static let maximumConnections = 512
    static let maximumDatabases = 1024

    enum PeerKey: Hashable {
        case address(BluetoothAddress)
        case connection(Int)
    }

    struct Connection {
        var isLive = true
        var info: CaptureConnection
        var peer: PeerKey
        /// Indices in `databases` of the peer's server and this host's.
        var remoteDatabase: Int
        var localDatabase: Int
        var sentFrame = L2CAPReassembly()
        var receivedFrame = L2CAPReassembly()
        /// The ATT request this host sent and awaits a response to (ATT allows one at a time per
        /// direction, Vol 3 Part F 3.3.2).
        var pendingSent: ATTRequest?
        /// The request the peer sent.
        var pendingReceived: ATTRequest?
    }

    init(datalink: BtsnoopDatalink, assumedHandles: [UInt16: BluetoothUUID]) {
        self.datalink = datalink
        self.assumedHandles = assumedHandles
    }

    /// The peer's GATT server as discovered so far on `connection`.
    func database(for connection: CaptureConnection) -> GATTDatabase? {
        remoteDatabaseIndex[connection.peer.map(PeerKey.address) ?? .connection(connection.number)].map {
            databases[$0]
        }
    }

    // MARK: - Records

    /// The next completed event, in order.
    @inline(__always)
    mutating func nextEvent() -> CaptureEvent? { pending.popLast() }

    private mutating func emit(_ event: CaptureEvent) { pending.append(event) }

    /// Parses one record (`bytes[record.data]`); `nextEvent()` then hands out what it completed.
    mutating func consume(_ record: BtsnoopRecordReader.View, _ bytes: [UInt8]) {
        statistics.records += 1
        defer { if pending.count > 1 { pending.reverse() } }
        var range = record.data
        let adapter: UInt16
        let direction: HCIDirection
        let type: HCIPacketType
        switch datalink {
        case .linuxMonitor:
            adapter = UInt16(truncatingIfNeeded: record.flags >> 16)
            switch BtsnoopMonitorOpcode(rawValue: UInt16(truncatingIfNeeded: record.flags)) {
            case .commandPacket: (type, direction) = (.command, .sent)
            case .eventPacket: (type, direction) = (.event, .received)
            case .aclSent: (type, direction) = (.acl, .sent)
            case .aclReceived: (type, direction) = (.acl, .received)
            case .deleteIndex:
                controllerRemoved(adapter, record)
                return
            case .systemNote:
                emit(
                    CaptureEvent(
                        record: record.number, time: record.time,
                        kind: .note(ident: "", message: Self.text(bytes, range))))
                return
            case .userLogging:
                userLogging(bytes, range, record)
                return
            default:
                return
            }
        case .hciUART:
            guard !range.isEmpty, let packetType = HCIPacketType(rawValue: bytes[range.lowerBound]) else {
                statistics.skip(.malformedPacket)
                return
            }
            type = packetType
            range = range.lowerBound + 1..<range.upperBound
            direction = record.flags & 1 == 0 ? .sent : .received
            adapter = 0
        case .hciUnencapsulated:
            direction = record.flags & 1 == 0 ? .sent : .received
            type = record.flags & 2 == 0 ? .acl : direction == .sent ? .command : .event
            adapter = 0
        }
        guard type == .acl || type == .event else { return }
        guard record.originalLength == UInt32(record.data.count) else {
            statistics.skip(.snappedPacket)
            return
        }
        if type == .acl {
            acl(bytes, range, adapter: adapter, direction: direction, record)
        } else {
            event(bytes, range, adapter: adapter, record)
        }
    }

    // MARK: - HCI events (Vol 4 Part E 5.4.4, 7.7)

    private mutating func event(
        _ b: [UInt8], _ r: Range<Int>, adapter: UInt16, _ record: BtsnoopRecordReader.View
    ) {
        guard r.count >= 2, Int(b[r.lowerBound + 1]) == r.count - 2 else {
            statistics.skip(.malformedPacket)
            return
        }
        let p = r.lowerBound + 2
        let length = r.count - 2
        switch b[r.lowerBound] {
        case 0x3E:  // LE Meta event
            guard length >= 1 else {
                statistics.skip(.malformedPacket)
                return
            }
            // LE Connection Complete (0x01), LE Enhanced Connection Complete v1 (0x0A) and v2
            // (0x29) share their first fields: status, handle, role, peer address type, peer address.
            guard [0x01, 0x0A, 0x29].contains(b[p]) else { return }
            guard length >= 12, let peer = BluetoothAddress(littleEndian: b, at: p + 6) else {
                statistics.skip(.malformedPacket)
                return
            }
            guard b[p + 1] == 0 else { return }  // the connection attempt failed
            let handle = Self.uint16(b, p + 2) & 0x0FFF
            // A handle reused without a disconnection in the capture: the old link is gone.
            if let slot = slot(adapter, handle) { release(slot) }
            connectionCount += 1
            let info = CaptureConnection(
                number: connectionCount, adapter: adapter, handle: handle, peer: peer, peerAddressType: b[p + 5],
                isCentral: b[p + 4] == 0)
            guard allocate(info, peer: .address(peer)) != nil else {
                statistics.skip(.connectionLimit)
                return
            }
            emit(CaptureEvent(record: record.number, time: record.time, kind: .connected(info)))
        case 0x05:  // Disconnection Complete: status, handle, reason
            guard length >= 4 else {
                statistics.skip(.malformedPacket)
                return
            }
            guard b[p] == 0 else { return }
            let handle = Self.uint16(b, p + 1) & 0x0FFF
            let info: CaptureConnection
            if let slot = slot(adapter, handle) {
                info = connections[slot].info
                release(slot)
            } else {
                connectionCount += 1
                info = CaptureConnection(number: connectionCount, adapter: adapter, handle: handle)
            }
            emit(CaptureEvent(record: record.number, time: record.time, kind: .disconnected(info, reason: b[p + 3])))
        default:
            return
        }
    }

    /// Monitor Delete Index: the controller is gone, and its links with it.
    private mutating func controllerRemoved(_ adapter: UInt16, _ record: BtsnoopRecordReader.View) {
        let gone = connections.indices.filter { connections[$0].isLive && connections[$0].info.adapter == adapter }
            .sorted { connections[$0].info.handle < connections[$1].info.handle }
        for slot in gone {
            emit(
                CaptureEvent(
                    record: record.number, time: record.time, kind: .disconnected(connections[slot].info, reason: nil)))
            release(slot)
        }
        if let index = localDatabaseIndex.removeValue(forKey: adapter) { freeDatabase(index) }
    }

    /// Monitor user logging: priority (1), ident length (1), ident (NUL-terminated), message.
    private mutating func userLogging(_ b: [UInt8], _ r: Range<Int>, _ record: BtsnoopRecordReader.View) {
        guard r.count >= 2, r.count - 2 >= Int(b[r.lowerBound + 1]) else {
            statistics.skip(.malformedPacket)
            return
        }
        let identEnd = r.lowerBound + 2 + Int(b[r.lowerBound + 1])
        let ident = Self.text(b, r.lowerBound + 2..<identEnd)
        emit(
            CaptureEvent(
                record: record.number, time: record.time,
                kind: .note(ident: ident, message: Self.text(b, identEnd..<r.upperBound))))
    }

    // MARK: - ACL and L2CAP

    private mutating func acl(
        _ b: [UInt8], _ r: Range<Int>, adapter: UInt16, direction: HCIDirection, _ record: BtsnoopRecordReader.View
    ) {
        guard r.count >= 4, Int(Self.uint16(b, r.lowerBound + 2)) == r.count - 4 else {
            statistics.skip(.malformedPacket)
            return
        }
        let handleAndFlags = Self.uint16(b, r.lowerBound)
        let handle = handleAndFlags & 0x0FFF
        let isContinuation = handleAndFlags >> 12 & 0b11 == 0b01
        let data = r.lowerBound + 4..<r.upperBound
        let slot: Int
        if let existing = self.slot(adapter, handle) {
            slot = existing
        } else {
            // Traffic on a connection whose start the capture missed.
            connectionCount += 1
            let info = CaptureConnection(number: connectionCount, adapter: adapter, handle: handle)
            guard let created = allocate(info, peer: .connection(connectionCount)) else {
                statistics.skip(.connectionLimit)
                return
            }
            slot = created
        }
        let outcome: L2CAPReassembly.Outcome
        if isContinuation {
            outcome =
                direction == .sent
                ? connections[slot].sentFrame.append(b, data) : connections[slot].receivedFrame.append(b, data)
        } else {
            if direction == .sent ? connections[slot].sentFrame.inProgress : connections[slot].receivedFrame.inProgress
            {
                statistics.skip(.incompleteFrame)
                if direction == .sent {
                    connections[slot].sentFrame.clear()
                } else {
                    connections[slot].receivedFrame.clear()
                }
            }
            // The common case: the start fragment is the whole frame; parse it in place.
            if data.count >= 4, 4 + Int(Self.uint16(b, data.lowerBound)) == data.count {
                frame(b, data, slot: slot, direction: direction, record)
                return
            }
            outcome =
                direction == .sent
                ? connections[slot].sentFrame.start(b, data) : connections[slot].receivedFrame.start(b, data)
        }
        switch outcome {
        case .pending:
            return
        case .dropped(let reason):
            statistics.skip(reason)
        case .complete:
            do {
                let whole =
                    direction == .sent ? connections[slot].sentFrame.frame : connections[slot].receivedFrame.frame
                frame(whole, 0..<whole.count, slot: slot, direction: direction, record)
            }
            if direction == .sent {
                connections[slot].sentFrame.clear()
            } else {
                connections[slot].receivedFrame.clear()
            }
        }
    }

    /// A complete L2CAP basic frame; only the LE attribute channel (CID 0x0004) matters here.
    @inline(__always)
    private mutating func frame(
        _ b: [UInt8], _ r: Range<Int>, slot: Int, direction: HCIDirection, _ record: BtsnoopRecordReader.View
    ) {
        guard Self.uint16(b, r.lowerBound + 2) == 0x0004 else { return }
        att(b, r.lowerBound + 4..<r.upperBound, slot: slot, direction: direction, record)
    }

    // MARK: - ATT (Vol 3 Part F 3.4)

    private mutating func att(
        _ b: [UInt8], _ r: Range<Int>, slot: Int, direction: HCIDirection, _ record: BtsnoopRecordReader.View
    ) {
        guard let opcode = r.isEmpty ? nil : b[r.lowerBound] else {
            statistics.skip(.malformedATT)
            return
        }
        let p = r.lowerBound + 1
        switch opcode {
        case ATTOpcode.handleValueNotification, ATTOpcode.handleValueIndication:
            guard r.count >= 3 else {
                statistics.skip(.malformedATT)
                return
            }
            notify(
                slot, direction, handle: Self.uint16(b, p), b[p + 2..<r.upperBound],
                indication: opcode == ATTOpcode.handleValueIndication, record)
        case ATTOpcode.multipleHandleValueNotification:
            // Handle, length, value; repeated (Core 5.2, Vol 3 Part F 3.4.7.4).
            var i = p
            while i < r.upperBound {
                guard r.upperBound - i >= 4, r.upperBound - i - 4 >= Int(Self.uint16(b, i + 2)) else {
                    statistics.skip(.malformedATT)
                    return
                }
                let end = i + 4 + Int(Self.uint16(b, i + 2))
                notify(slot, direction, handle: Self.uint16(b, i), b[i + 4..<end], indication: false, record)
                i = end
            }
        case ATTOpcode.errorResponse:
            // The request opcode in error, its handle, the error code.
            guard r.count >= 5 else {
                statistics.skip(.malformedATT)
                return
            }
            if pending(slot, direction.opposite)?.opcode == b[p] {
                setPending(slot, direction.opposite, nil)
            } else {
                statistics.skip(.unpairedResponse)
            }
        case _ where ATTOpcode.requests.contains(opcode):
            let request = ATTRequest(b, r)
            if request == nil { statistics.skip(.malformedATT) }
            setPending(slot, direction, request)
        case _ where ATTOpcode.requests.contains(opcode &- 1):
            // A response: its request went the other way.
            guard let request = pending(slot, direction.opposite), request.opcode &+ 1 == opcode else {
                statistics.skip(.unpairedResponse)
                return
            }
            setPending(slot, direction.opposite, nil)
            response(b, r, to: request, slot: slot, server: direction)
        default:
            return  // commands, confirmations, signed writes: nothing to learn
        }
    }

    private func pending(_ slot: Int, _ direction: HCIDirection) -> ATTRequest? {
        direction == .sent ? connections[slot].pendingSent : connections[slot].pendingReceived
    }

    private mutating func setPending(_ slot: Int, _ direction: HCIDirection, _ request: ATTRequest?) {
        if direction == .sent {
            connections[slot].pendingSent = request
        } else {
            connections[slot].pendingReceived = request
        }
    }

    @inline(__always)
    private mutating func notify(
        _ slot: Int, _ direction: HCIDirection, handle: UInt16, _ value: consuming ArraySlice<UInt8>, indication: Bool,
        _ record: BtsnoopRecordReader.View
    ) {
        let database = direction == .received ? connections[slot].remoteDatabase : connections[slot].localDatabase
        let uuid = databases[database].uuid(ofHandle: handle) ?? assumedHandles[handle]
        if uuid == nil { statistics.skip(.undiscoveredHandle) }
        statistics.notifications += 1
        // Built in place, straight into `pending`: a notification held in a local first, or passed
        // through `emit`, costs a copy of it.
        pending.append(
            CaptureEvent(
                record: record.number, time: record.time,
                kind: .notification(
                    ATTNotification(
                        connection: connections[slot].info, direction: direction, handle: handle, uuid: uuid,
                        value: value,
                        isIndication: indication))))
    }

    /// What a discovery response says about the server that sent it (Vol 3 Part G 4.4-4.7).
    private mutating func response(
        _ b: [UInt8], _ r: Range<Int>, to request: ATTRequest, slot: Int, server: HCIDirection
    ) {
        let p = r.lowerBound + 1
        let n = r.count
        var refused = 0
        var malformed = false
        func entries(from start: Int, size: Int, _ body: (Int) -> Void) {
            guard size > 0, r.upperBound - start >= size, (r.upperBound - start) % size == 0 else {
                malformed = true
                return
            }
            for i in stride(from: start, to: r.upperBound, by: size) { body(i) }
        }
        withDatabase(slot, server: server) { db in
            switch b[r.lowerBound] {
            case ATTOpcode.findInformationResponse:
                // Format 1: handle + 16-bit UUID; format 2: handle + 128-bit UUID.
                guard n >= 2, b[p] == 1 || b[p] == 2 else {
                    malformed = true
                    return
                }
                let uuidSize = b[p] == 1 ? 2 : 16
                entries(from: p + 1, size: 2 + uuidSize) { i in
                    if !db.setType(Self.uuid(b, i + 2, uuidSize)!, at: Self.uint16(b, i)) { refused += 1 }
                }
            case ATTOpcode.findByTypeValueResponse:
                // Found handle, group end handle; the service UUID was the request's value.
                guard let type = request.attributeType,
                    type == ATTOpcode.primaryService || type == ATTOpcode.secondaryService,
                    let service = request.value
                else { return }
                entries(from: p, size: 4) { i in
                    let start = Self.uint16(b, i)
                    let end = Self.uint16(b, i + 2)
                    guard start <= end else {
                        malformed = true
                        return
                    }
                    if !db.addService(
                        .init(handles: start...end, uuid: service, isPrimary: type == ATTOpcode.primaryService))
                    {
                        refused += 1
                    }
                }
            case ATTOpcode.readByTypeResponse:
                // Length, then (handle, value) pairs of that length; each handle has the requested type.
                guard n >= 2, b[p] >= 2, let type = request.attributeType else {
                    malformed = true
                    return
                }
                let size = Int(b[p])
                let isDeclaration = type == ATTOpcode.characteristic
                if isDeclaration, size != 7, size != 21 {
                    malformed = true
                    return
                }
                entries(from: p + 1, size: size) { i in
                    if !db.setType(type, at: Self.uint16(b, i)) { refused += 1 }
                    if isDeclaration {
                        // Characteristic declaration: properties, value handle, characteristic UUID.
                        if !db.setType(Self.uuid(b, i + 5, size - 5)!, at: Self.uint16(b, i + 3)) { refused += 1 }
                    } else if type == ATTOpcode.deviceName {
                        db.setName(Self.text(b, i + 2..<i + size))
                    }
                }
            case ATTOpcode.readResponse:
                if db.uuid(ofHandle: request.handle) == ATTOpcode.deviceName {
                    db.setName(Self.text(b, p..<r.upperBound))
                }
            case ATTOpcode.readByGroupTypeResponse:
                // Length, then (start handle, end group handle, UUID) entries of that length.
                guard n >= 2, b[p] == 6 || b[p] == 20, let type = request.attributeType,
                    type == ATTOpcode.primaryService || type == ATTOpcode.secondaryService
                else {
                    malformed = true
                    return
                }
                let size = Int(b[p])
                entries(from: p + 1, size: size) { i in
                    let start = Self.uint16(b, i)
                    let end = Self.uint16(b, i + 2)
                    guard start <= end else {
                        malformed = true
                        return
                    }
                    let service = GATTDatabase.Service(
                        handles: start...end, uuid: Self.uuid(b, i + 4, size - 4)!,
                        isPrimary: type == ATTOpcode.primaryService)
                    if !db.setType(type, at: start) || !db.addService(service) { refused += 1 }
                }
            default:
                return
            }
        }
        if malformed { statistics.skip(.malformedATT) }
        if refused > 0 { statistics.skip(.attributeLimit, refused) }
    }

    /// Runs `body` on the database of the server that answers in `server` direction: the peer's
    /// for received responses, this host's for sent ones.
    private mutating func withDatabase(_ slot: Int, server: HCIDirection, _ body: (inout GATTDatabase) -> Void) {
        body(&databases[server == .received ? connections[slot].remoteDatabase : connections[slot].localDatabase])
    }

    // MARK: - Connection slots and databases

    /// The slot of the live connection `handle` on controller `adapter`.
    @inline(__always)
    private mutating func slot(_ adapter: UInt16, _ handle: UInt16) -> Int? {
        guard lastTable < handleTables.count, handleTables[lastTable].adapter == adapter else {
            guard let index = handleTables.firstIndex(where: { $0.adapter == adapter }) else { return nil }
            lastTable = index
            return slot(in: index, handle)
        }
        return slot(in: lastTable, handle)
    }

    @inline(__always)
    private func slot(in table: Int, _ handle: UInt16) -> Int? {
        let slot = handleTables[table].slots[Int(handle & 0x0FFF)]
        return slot >= 0 ? Int(slot) : nil
    }

    private mutating func allocate(_ info: CaptureConnection, peer: PeerKey) -> Int? {
        guard liveConnections < Self.maximumConnections else { return nil }
        let connection = Connection(
            info: info, peer: peer, remoteDatabase: database(for: peer), localDatabase: localDatabase(info.adapter))
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            connections[slot] = connection
        } else {
            slot = connections.count
            connections.append(connection)
        }
        // A table of 4096 handles per controller with connections: at most 512 of them, those of
        // controllers without live connections dropped first.
        let table =
            handleTables.firstIndex { $0.adapter == info.adapter }
            ?? {
                if handleTables.count >= Self.maximumConnections {
                    let live = Set(connections.filter(\.isLive).map(\.info.adapter))
                    handleTables.removeAll { !live.contains($0.adapter) }
                    lastTable = 0
                }
                handleTables.append((info.adapter, [Int32](repeating: -1, count: 0x1000)))
                return handleTables.count - 1
            }()
        handleTables[table].slots[Int(info.handle)] = Int32(slot)
        liveConnections += 1
        return slot
    }

    private mutating func release(_ slot: Int) {
        let connection = connections[slot]
        guard connection.isLive else { return }
        if connection.sentFrame.inProgress || connection.receivedFrame.inProgress { statistics.skip(.incompleteFrame) }
        if let table = handleTables.firstIndex(where: { $0.adapter == connection.info.adapter }) {
            handleTables[table].slots[Int(connection.info.handle)] = -1
        }
        connections[slot].isLive = false
        connections[slot].sentFrame = L2CAPReassembly()
        connections[slot].receivedFrame = L2CAPReassembly()
        freeSlots.append(slot)
        liveConnections -= 1
    }

    /// The index of `peer`'s database, made when new. When the databases are many, those of peers
    /// not connected now are forgotten first.
    private mutating func database(for peer: PeerKey) -> Int {
        if let index = remoteDatabaseIndex[peer] { return index }
        if remoteDatabaseIndex.count >= Self.maximumDatabases {
            let live = Set(connections.filter(\.isLive).map(\.peer))
            for (key, index) in remoteDatabaseIndex where !live.contains(key) {
                remoteDatabaseIndex[key] = nil
                freeDatabase(index)
            }
        }
        let index = newDatabase()
        remoteDatabaseIndex[peer] = index
        return index
    }

    private mutating func localDatabase(_ adapter: UInt16) -> Int {
        if let index = localDatabaseIndex[adapter] { return index }
        if localDatabaseIndex.count >= Self.maximumDatabases {
            let live = Set(connections.filter(\.isLive).map(\.info.adapter))
            for (key, index) in localDatabaseIndex where !live.contains(key) {
                localDatabaseIndex[key] = nil
                freeDatabase(index)
            }
        }
        let index = newDatabase()
        localDatabaseIndex[adapter] = index
        return index
    }

    private mutating func newDatabase() -> Int {
        if let index = freeDatabases.popLast() { return index }
        databases.append(GATTDatabase())
        return databases.count - 1
    }

    private mutating func freeDatabase(_ index: Int) {
        databases[index] = GATTDatabase()
        freeDatabases.append(index)
    }

    // MARK: - Bytes

    /// uint16, little-endian, as HCI, L2CAP and ATT carry it.
    @inline(__always)
    static func uint16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }

    /// A UUID of `count` bytes (2, 4 or 16), little-endian as ATT carries it (Vol 3 Part F 3.2.1).
    static func uuid(_ b: [UInt8], _ i: Int, _ count: Int) -> BluetoothUUID? {
        switch count {
        case 2: return BluetoothUUID(UInt32(uint16(b, i)))
        case 4: return BluetoothUUID(UInt32(uint16(b, i)) | UInt32(uint16(b, i + 2)) << 16)
        case 16:
            var low: UInt64 = 0
            var high: UInt64 = 0
            for k in (0..<8).reversed() {
                low = low << 8 | UInt64(b[i + k])
                high = high << 8 | UInt64(b[i + 8 + k])
            }
            return BluetoothUUID(high: high, low: low)
        default: return nil
        }
    }

    /// UTF-8 text up to the first NUL (log lines and names are often NUL-terminated or padded).
    static func text(_ b: [UInt8], _ r: Range<Int>) -> String {
        let end = b[r].firstIndex(of: 0) ?? r.upperBound
        return String(decoding: b[r.lowerBound..<end], as: UTF8.self)
    }
}
