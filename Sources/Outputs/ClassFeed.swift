import Foundation
public import HTTP
public import SensorCore
import Synchronization
public import WorkoutStore
import Zones

/// Every rider of a class on one screen (`serve --http` with several athletes, `GET /api/class`):
/// each rider's own `LiveFeed` (their page is `/athletes/NAME/live`), and the class as
/// Server-Sent Events, one `class` event twice a second with a tile per rider who is recording
/// (`tile(name:_:)`), riders joining and leaving as their workouts start and end.
///
/// Made from each feed's live state on a thread of its own (`sb.class`), formatted once and
/// written to every client; nothing is formatted while nobody follows. A client that reads too
/// slowly is never waited for: it misses events until its queue has room again (each event is
/// the whole class, so it needs nothing more to catch up).
public final class ClassFeed: Sendable {
    /// How often the class goes out.
    public static let interval = Duration.milliseconds(500)

    /// The riders by name (an athlete's, or nil for the box's own sensors), in the order shown.
    public let riders: [(name: AthleteName?, feed: LiveFeed)]
    private let clients = Mutex<[HTTPStream]>([])
    private let stopping = Atomic(false)
    private let done = DispatchSemaphore(value: 0)

    /// `riders`: each rider's name (nil for the box's own lane, shown as `box`) and feed; shown
    /// with the box's own first, then by name as people sort them (`Rider2` before `Rider10`).
    public init(riders: [(name: AthleteName?, feed: LiveFeed)]) {
        self.riders = riders.sorted { a, b in
            guard let first = a.name else { return b.name != nil }
            guard let second = b.name else { return false }
            return first.rawValue.localizedStandardCompare(second.rawValue) == .orderedAscending
        }
        Thread { [self] in
            Thread.nameCurrent("sb.class")
            run()
            done.signal()
        }.start()
    }

    /// The rider named `name` (as athletes' names compare: `anna` is Anna) with their feed, nil for none.
    public func rider(named name: String) -> (name: AthleteName, feed: LiveFeed)? {
        guard let wanted = AthleteName(rawValue: name) else { return nil }
        return riders.first { $0.name == wanted }.map { ($0.name!, $0.feed) }
    }

    /// The feed of the athlete `name`, or of the box's own sensors for nil (when the class has one).
    public func feed(of name: AthleteName?) -> LiveFeed? {
        riders.first { $0.name == name }?.feed
    }

    /// A new client: its stream, which starts with the class now.
    public func connect(capacity: Int = 64 * 1024) -> HTTPStream {
        let stream = HTTPStream(capacity: capacity)
        _ = stream.write(LiveFeed.message("class", snapshot()))
        clients.withLock { $0.append(stream) }
        return stream
    }

    /// The class now: `{"riders": [tile, ...]}`, the riders recording.
    public func snapshot() -> JSONValue {
        .object([
            "riders": .array(riders.compactMap { rider in rider.feed.currentState().map { Self.tile(name: rider.name?.rawValue, $0) } })
        ])
    }

    /// Ends every client's stream and the thread (the server is stopping).
    public func closeAll() {
        stopping.store(true, ordering: .relaxed)
        done.wait()
        for client in clients.withLock({ $0 }) { client.close() }
    }

    private func run() {
        while !stopping.load(ordering: .relaxed) {
            Thread.sleep(forTimeInterval: Self.interval.seconds)
            let followed = clients.withLock { list in
                list.removeAll(where: \.isClosed)
                return !list.isEmpty
            }
            guard followed else { continue }
            let message = LiveFeed.message("class", snapshot())
            // A full queue refuses the write: that client misses this one.
            for client in clients.withLock({ $0 }) { _ = client.write(message) }
        }
    }

    /// A rider's tile: `name` (null for the box's own sensors), `heartRate`, `percentOfMaximum`
    /// (of the profile's maximum, measured or estimated), `power`, `power3s`, `wattsPerKilogram`
    /// (of the profile's weight, to a tenth), `zonePoints` (`ZonePoints`, whole), `calories` (kcal,
    /// `WorkoutStatistics.calories`), `zone` (the heart-rate zone, else the power zone:
    /// `quantity`, `number` from 1, `of`, `color`), `inZoneFor`, `timeInTarget` (in the first
    /// target's zones, s; null without a target), `elapsed` and `active` (s), `paused`, `sensors`
    /// (`key` and `link`). Values are null once they no longer hold.
    public static func tile(name: String?, _ state: DashboardState) -> JSONValue {
        func number(_ value: Double?) -> JSONValue { value.map { .number($0.rounded()) } ?? .null }
        let zoned = state.zones.first { $0.configuration.quantityType == .heartRate && $0.current != nil }
            ?? state.zones.first { $0.current != nil }
        let zone: JSONValue = zoned.flatMap { zones in
            zones.current.map { current in
                .object([
                    "quantity": .string(zones.configuration.quantityType.identifier), "number": .number(Double(current + 1)),
                    "of": .number(Double(zones.durations.count)),
                    "color": .string(ZonePalette.hexColors(count: zones.durations.count)[current]),
                ])
            }
        } ?? .null
        let target = state.targets.first.map { target -> JSONValue in
            let durations = state.zones.first { $0.configuration.quantityType == target.target.quantityType }?.durations ?? []
            return .number(target.target.time(inZones: durations).seconds.rounded(.down))
        } ?? .null
        let percent = state.heartRate.flatMap { rate in state.maximumHeartRate.map { 100 * rate / $0 } }
        let perKilogram = state.power.flatMap { power in state.weight.map { ((power / Double($0)) * 10).rounded() / 10 } }
        return .object([
            "name": name.map(JSONValue.string) ?? .null, "heartRate": number(state.heartRate), "percentOfMaximum": number(percent),
            "power": number(state.power), "power3s": number(state.power3s), "wattsPerKilogram": perKilogram.map(JSONValue.number) ?? .null,
            "zone": zone, "zonePoints": number(state.zonePoints), "calories": number(state.calories),
            "inZoneFor": .number((zoned?.inZoneFor ?? .zero).seconds.rounded(.down)), "timeInTarget": target,
            "elapsed": .number(state.elapsed.seconds.rounded(.down)), "active": .number(state.active.seconds.rounded(.down)),
            "paused": .bool(state.paused != nil),
            "sensors": .array(state.sensors.map { sensor in
                .object(["key": .string(sensor.key), "link": .string(LiveFeed.linkName(sensor.link))])
            }),
        ])
    }
}
