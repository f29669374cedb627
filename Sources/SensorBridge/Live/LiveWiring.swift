import BlueZ
import Foundation
import HTTP
import Outputs
import Session
import WorkoutStore

/// The live path's wiring, written once for `record` (and `relay`, which is `record --no-save
/// --relay`) and `serve`: the relay offered before anything records, the links to the sensors
/// with each notification passed to the recording and on to the relay, and the web server with
/// its live feed. What differs is only where a notification goes (`record`: its one source;
/// `serve`: the router of the sensor's athlete) and who follows the link events.
struct LiveWiring {
    let relay: GattRelay?
    let reencode: Bool

    /// Registers the relay of the sensors keyed `keys` when `--relay` was given, its statuses shown
    /// on `screens` (the dashboard, the live page).
    init(
        _ options: RelayOptions, client: BlueZClient, adapter: String, keys: [String], log: @escaping @Sendable (String) -> Void,
        screens: @escaping @Sendable (RelayStatus) -> Void
    ) throws {
        relay = try options.start(client: client, adapter: adapter, keys: keys, log: log, show: screens)
        reencode = options.reencode
    }

    /// The links to `sensors`: each notification to `deliver` and then to the relay; each link
    /// event to the relay (a value read: the battery, the sensor's location) and then to `follow`.
    func links(
        client: BlueZClient, sensors: [SensorRequest], livePath: LivePathOptions, log: @escaping @Sendable (String) -> Void,
        deliver: @escaping @Sendable (BlueZNotification) -> Void, follow: @escaping @Sendable (SensorLinkEvent) -> Void
    ) -> SensorLinks {
        let (relay, reencode) = (self.relay, self.reencode)
        return SensorLinks(
            client: client, sensors: sensors, notifyPath: livePath.notifyPath, autoConnect: livePath.autoConnect,
            onNotification: { notification in
                deliver(notification)
                relay?.forward(notification, reencoding: reencode)
            },
            onEvent: { event in
                if case .value(_, let uuid, let bytes) = event { relay?.setReadValue(uuid: uuid, bytes: bytes) }
                follow(event)
            },
            onProfile: { log(LiveSensorSource.describe($0)) })
    }

    /// The web page and the API on `web`'s address, over the store `arguments` name, with `live`
    /// for the workout being recorded (`record`, `serve`; none for `web`) or `riders` for a class
    /// (`serve` with several athletes); says where it serves.
    /// Nil without `--http`.
    static func serveWeb(
        _ web: WebOptions?, _ arguments: CommandArguments, _ context: CommandContext, live: LiveFeed?, riders: ClassFeed? = nil,
        log: @escaping @Sendable (String) -> Void
    ) throws -> HTTPServer? {
        guard let web else { return nil }
        let server = try web.start(
            store: try? StoreLocation.opener(arguments, context), timeZone: context.timeZone, live: live, riders: riders, log: log)
        log("serving \(web.url(port: server.port))")
        return server
    }
}
