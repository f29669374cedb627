import SensorCore
import Zones

/// Draws a `DashboardState` as lines of text no wider than the terminal: the figures, the current
/// zone of each quantity (highlighted, with how long it has been in it), time-in-zone bars, and
/// each sensor's link and battery. Pure: state in, lines out; `TerminalDashboard` puts them on
/// the screen. Remembers how many zone entries it has drawn, to ring the bell once per change.
struct DashboardRenderer {
    /// One screen: its lines (ANSI reverse video marks the current zone) and whether to ring.
    struct Frame: Equatable {
        var lines: [String]
        /// A quantity entered a zone since the previous frame.
        var bell: Bool
    }

    /// Below this the lines are cut rather than laid out again.
    static let minimumWidth = 20
    static let highlightOn = "\u{1B}[7m"
    static let highlightOff = "\u{1B}[27m"

    private var zoneEntriesDrawn = 0

    mutating func render(_ state: DashboardState, width: Int) -> Frame {
        let width = max(width, Self.minimumWidth)
        var lines: [(text: String, highlighted: Bool)] = []
        func add(_ text: String, highlighted: Bool = false) { lines.append((text, highlighted)) }

        let paused = state.paused.map { "  PAUSED" + ($0 == .auto ? " (auto)" : "") } ?? ""
        add("sensorbridge record  \(state.elapsed.clockText)  active \(state.active.clockText)  lap \(state.lap)\(paused)")
        let heartZone = state.zones.first { $0.configuration.quantityType == .heartRate }
        let powerZone = state.zones.first { $0.configuration.quantityType == .cyclingPower }
        add("Heart rate  \(Self.figure(state.heartRate, "bpm"))" + Self.currentZone(heartZone))
        add(
            "Power  \(Self.figure(state.power, "W"))  3 s \(Self.figure(state.power3s, "W"))"
                + "  cadence \(Self.figure(state.cadence, "rpm"))" + Self.currentZone(powerZone))
        for zones in state.zones {
            add("")
            add(zones.configuration.quantityType == .heartRate ? "Heart rate zones" : "Power zones")
            let unit = zones.configuration.quantityType.canonicalUnit == .watt ? "W" : "bpm"
            let longest = zones.durations.max() ?? .zero
            // "  Zone 3  120-130 bpm       2:15  " then the bar in what is left.
            let barWidth = width - 35
            for zone in zones.configuration.zones {
                let duration = zones.durations[zone.index]
                let bar =
                    barWidth > 0 && longest > .zero
                    ? String(repeating: "█", count: Int((duration / longest * Double(barWidth)).rounded())) : ""
                let marker = zone.index == zones.current ? ">" : " "
                add(
                    "\(marker) Zone \(zone.index + 1)  \(zone.rangeText(unit: unit).padding(toLength: 14, withPad: " ", startingAt: 0))"
                        + " \(duration.clockText.leftPadded(8))  \(bar)",
                    highlighted: zone.index == zones.current)
            }
        }
        if state.zones.isEmpty {
            add("")
            add("No zones: give --hr-zones/--power-zones, or --ftp, --age and --resting-hr.")
        }
        add("")
        for sensor in state.sensors {
            let battery = sensor.battery.map { "  battery \($0) %" } ?? ""
            add("\(sensor.name) (\(sensor.key))  \(Self.describe(sensor.link))\(battery)")
        }
        if let message = state.message { add(message) }
        if state.keys { add("space pause/resume   l lap   q end and save") }

        let bell = state.zoneEntries > zoneEntriesDrawn
        zoneEntriesDrawn = state.zoneEntries
        return Frame(
            lines: lines.map { line in
                let text = String(line.text.prefix(width))
                return line.highlighted ? Self.highlightOn + text + Self.highlightOff : text
            },
            bell: bell)
    }

    /// `142 bpm`, or `-- bpm` when there is no fresh value.
    static func figure(_ value: Double?, _ unit: String) -> String {
        "\(value.map { String(Int($0.rounded())) } ?? "--") \(unit)"
    }

    /// `   zone 3 for 1:12`, nothing without zones.
    static func currentZone(_ zones: DashboardState.Zones?) -> String {
        guard let zones else { return "" }
        guard let current = zones.current else { return "   no zone" }
        return "   zone \(current + 1) for \(zones.inZoneFor.clockText)"
    }

    static func describe(_ link: DashboardState.Link) -> String {
        switch link {
        case .connected: "connected"
        case .stale: "stale, subscribing again"
        case .noContact: "no contact (values not counted)"
        case .invalid: "invalid values (not counted)"
        case .connecting(nil): "connecting"
        case .connecting(let retryIn?): "connecting, next try in \(Self.seconds(retryIn)) s"
        case .lost(nil): "lost, reconnecting"
        case .lost(let retryIn?): "lost, reconnecting in \(Self.seconds(retryIn)) s"
        }
    }

    /// Whole seconds, rounded up (a countdown shows 1 until it is due).
    static func seconds(_ d: Duration) -> Int { Int(d.seconds.rounded(.up)) }
}
