import Outputs
import SensorCore
import Workouts
import Zones

/// Draws a `DashboardState` as lines of text that fit the terminal: the time, the current figures
/// (in big digits when there is room), lap and ride averages, target zones, the zones of each
/// quantity (bars, or one line each when the screen is short), the sensors and the latest
/// message. Pure: state in, lines out; `TerminalDashboard` puts them on the screen.
///
/// What is drawn always: the time line, the figures, the averages, the targets, the sensors, the
/// message (wrapped, never cut) and the keys. The zones get what is left: bars when they fit, else
/// a line per quantity, else nothing; big digits come last, when 4 more rows and 60 columns are
/// free. The current zone is drawn in its colour (`ZonePalette`, one palette by zone index for the
/// dashboard, the chart and the web page). The bell rings once each time a target
/// alert starts, never on an ordinary zone change.
struct DashboardRenderer {
    /// One screen: its lines and whether to ring.
    struct Frame: Equatable {
        var lines: [String]
        var bell: Bool
    }

    /// Below this the lines are cut rather than laid out again.
    static let minimumWidth = 20
    static let reset = "\u{1B}[0m"
    /// Reverse video, for a target alert.
    static let alertOn = "\u{1B}[7m"

    /// Targets alerting in the previous frame, to ring once per alert.
    private var alertingDrawn: Set<QuantityType> = []
    /// The plan's step in the previous frame, and whether its alert was on.
    private var stepDrawn: Int?
    private var stepAlertDrawn = false

    private enum Style: Equatable {
        case plain
        case zone(index: Int, count: Int)
        case alert
        /// Already coloured and known to fit: drawn as it is.
        case raw
    }

    mutating func render(_ state: DashboardState, width: Int, height: Int = 60) -> Frame {
        let width = max(width, Self.minimumWidth)
        var bottom: [(String, Style)] = []

        let paused = state.paused.map { "  PAUSED" + ($0 == .auto ? " (auto)" : "") } ?? ""
        let header = (
            "sensorbridge record  \(state.elapsed.clockText)  active \(state.active.clockText)  "
                + "lap \(state.lap) \(state.lapElapsed.clockText)\(paused)", Style.plain)
        let heartZone = state.zones.first { $0.configuration.quantityType == .heartRate }
        let powerZone = state.zones.first { $0.configuration.quantityType == .cyclingPower }
        // The means and cadence on a line of their own, so that each zone stays on its figure's
        // line on a narrow screen.
        let means = "3 s \(Self.figure(state.power3s, "W"))  10 s \(Self.figure(state.power10s, "W"))  "
            + "cadence \(Self.figure(state.cadence, "rpm"))"
        let figures: [(String, Style)] = [
            ("Heart rate  \(Self.figure(state.heartRate, "bpm"))" + Self.currentZone(heartZone), Self.style(heartZone)),
            ("Power  \(Self.figure(state.power, "W"))" + Self.percentOfFTP(state) + Self.currentZone(powerZone),
             Self.style(powerZone)),
            (means, .plain),
        ]
        var averages = [("Lap   " + Self.averages(state.lapFigures, ftp: nil), Style.plain)]
        averages.append(("Ride  " + Self.averages(state.ride, ftp: state.functionalThresholdPower), .plain))
        if let alpha1 = state.dfaAlpha1 {
            let hundredths = Int((alpha1 * 100).rounded())
            let fraction = hundredths % 100 < 10 ? "0\(hundredths % 100)" : "\(hundredths % 100)"
            averages.append(("HRV   DFA α1 \(hundredths / 100).\(fraction) (last 2 min)", .plain))
        }
        if let activity = state.activity {
            averages.append(
                ("Activity \(activity.number)  \(activity.type.rawValue) \(activity.elapsed.clockText)"
                    + (activity.next.map { "   next: \($0.rawValue)" } ?? ""), .plain))
        }
        for target in state.targets { averages.append(Self.targetLine(target)) }
        if let step = state.step { averages += Self.stepLines(step) }

        for sensor in state.sensors {
            let battery = sensor.battery.map { "  battery \($0) %" } ?? ""
            bottom.append(("\(sensor.name) (\(sensor.key))  \(Self.describe(sensor.link))\(battery)", .plain))
        }
        if let relay = state.relay { bottom += Self.wrapped(relay, width: width).map { ($0, .plain) } }
        if let message = state.message { bottom += Self.wrapped(message, width: width).map { ($0, .plain) } }
        if state.keys {
            let next = state.activity?.next.map { "   n \($0.rawValue)" } ?? ""
            let lap = state.step == nil ? "l lap" : "l next step"
            bottom.append(("space pause/resume   \(lap)\(next)   q end and save", .plain))
        }

        // The zones get what the rest leaves.
        let fixed = 1 + figures.count + averages.count + bottom.count
        var left = height - fixed
        var zoneLines: [(String, Style)] = []
        let bars = state.zones.flatMap { [("", Style.plain)] + Self.bars($0, width: width) } + [("", .plain)]
        let compact = state.zones.map { Self.compactZones($0) }
        if state.zones.isEmpty {
            zoneLines = [("", .plain), ("No zones: give --hr-zones/--power-zones, or --ftp, --age and --resting-hr.", .plain)]
        } else if bars.count <= left {
            zoneLines = bars
        } else if compact.count <= left {
            zoneLines = compact
        }
        left -= zoneLines.count
        var figureLines = figures
        // Big digits take 6 rows where the heart rate and power lines took 2.
        if left >= 4, width >= 60, state.heartRate != nil || state.power != nil {
            figureLines = Self.bigFigures(state, heartZone: heartZone, powerZone: powerZone)
                + [(means + Self.percentOfFTP(state), .plain)]
        }
        let lines = [header] + figureLines + averages + zoneLines + bottom

        let alerting = Set(state.targets.filter(\.alert).map(\.target.quantityType))
        // Once for each target alert as it starts, each step as it begins and each step alert.
        let stepBegan = state.step != nil && state.step?.number != stepDrawn
        let stepAlert = state.step?.alert == true && !stepAlertDrawn
        let bell = !alerting.subtracting(alertingDrawn).isEmpty || stepBegan && stepDrawn != nil || stepAlert
        alertingDrawn = alerting
        (stepDrawn, stepAlertDrawn) = (state.step?.number ?? stepDrawn, state.step?.alert == true)
        return Frame(lines: lines.map { Self.draw($0.0, $0.1, width: width) }, bell: bell)
    }

    private static func draw(_ text: String, _ style: Style, width: Int) -> String {
        let cut = text.prefix(width)
        switch style {
        case .raw: return text
        case .plain: return String(cut)
        case .alert: return alertOn + cut + reset
        case .zone(let index, let count): return zoneColor(index, of: count) + cut + reset
        }
    }

    /// Black on the zone's colour (`ZonePalette`'s nearest xterm-256 colour).
    static func zoneColor(_ index: Int, of count: Int) -> String {
        "\u{1B}[30;48;5;\(ZonePalette.colors(count: count)[min(index, count - 1)].ansi256)m"
    }

    private static func style(_ zones: DashboardState.Zones?) -> Style {
        guard let zones, let current = zones.current else { return .plain }
        return .zone(index: current, count: zones.configuration.zones.count)
    }

    /// `142 bpm`, or `-- bpm` when there is no fresh value.
    static func figure(_ value: Double?, _ unit: String) -> String {
        "\(value.map { String(Int($0.rounded())) } ?? "--") \(unit)"
    }

    /// `  98 % FTP` when there is a power and an FTP.
    static func percentOfFTP(_ state: DashboardState) -> String {
        guard let power = state.power, let ftp = state.functionalThresholdPower, ftp > 0 else { return "" }
        return "  \(Int((power / Double(ftp) * 100).rounded())) % FTP"
    }

    /// `avg 142 bpm  231 W  NP 240 W  IF 0.96  312 kJ`, with what there is.
    static func averages(_ figures: DashboardState.Figures, ftp: Int?) -> String {
        var parts = ["avg \(figure(figures.heartRate, "bpm"))", figure(figures.power, "W")]
        if let np = figures.normalizedPower {
            parts.append("NP \(figure(np, "W"))")
            if let ftp, ftp > 0 { parts.append("IF " + String(format: "%.2f", np / Double(ftp))) }
        }
        if let energy = figures.energy { parts.append(figure(energy, "kJ")) }
        return parts.joined(separator: "  ")
    }

    /// `Step 3/8 On  2:48, 2:12 left  90% of FTP (225 W)` and `  in target   next: 5:00, 55% of
    /// FTP (138 W)`, or, alerting, `  OUT 0:14, too low` in reverse video.
    private static func stepLines(_ step: DashboardState.Step) -> [(String, Style)] {
        let name = step.name.map { " \($0)" } ?? ""
        let time = step.elapsed.clockText + (step.timeLeft.map { ", \($0.clockText) left" } ?? " (until the lap key)")
        let first = "Step \(step.number)/\(step.count)\(name)  \(time)  \(step.target)"
        let next = step.next.map { "   next: \($0)" } ?? "   last step"
        let judged: String
        if step.goal == nil {
            judged = "  no target"
        } else if step.paused {
            judged = "  paused"
        } else if let outFor = step.outFor, let judgement = step.judgement {
            judged = "  OUT \(outFor.clockText), \(judgement == .below ? "too low" : "too high")"
        } else {
            judged = step.judgement == nil ? "  no value" : "  in target"
        }
        return [(first, .plain), (judged + next, step.alert ? .alert : .plain)]
    }

    /// `Target heart-rate zones 2-3: in` or, alerting, `Target heart-rate zones 2-3: OUT 0:14 (zone 4)`.
    private static func targetLine(_ target: DashboardState.Target) -> (String, Style) {
        let zones = "Target \(target.target.label): "
        guard !target.paused else { return (zones + "paused", .plain) }
        guard let current = target.currentZone else { return (zones + "no zone", .plain) }
        guard let outFor = target.outFor else { return (zones + "in (zone \(current + 1))", .plain) }
        let direction = current < target.target.zones.lowerBound ? "too low" : "too high"
        return (zones + "OUT \(outFor.clockText), \(direction) (zone \(current + 1))", target.alert ? .alert : .plain)
    }

    /// `   zone 3 for 1:12`, nothing without zones.
    static func currentZone(_ zones: DashboardState.Zones?) -> String {
        guard let zones else { return "" }
        guard let current = zones.current else { return "   no zone" }
        return "   zone \(current + 1) for \(zones.inZoneFor.clockText)"
    }

    /// A title and a line per zone with its time and a bar in what the width leaves.
    private static func bars(_ zones: DashboardState.Zones, width: Int) -> [(String, Style)] {
        // Of a multisport workout, the activity's time in each zone follows the workout's.
        let title = zones.configuration.quantityType == .heartRate ? "Heart rate zones" : "Power zones"
        var lines: [(String, Style)] = [(title + (zones.activityDurations == nil ? "" : "      workout  activity"), .plain)]
        let unit = zones.configuration.quantityType.canonicalUnit == .watt ? "W" : "bpm"
        let longest = zones.durations.max() ?? .zero
        // "  Zone 3  120-130 bpm       2:15  " (and the activity's "    0:45") then the bar in what is left.
        let barWidth = width - 35 - (zones.activityDurations == nil ? 0 : 9)
        let count = zones.configuration.zones.count
        for zone in zones.configuration.zones {
            let duration = zones.durations[zone.index]
            let bar =
                barWidth > 0 && longest > .zero
                ? String(repeating: "█", count: Int((duration / longest * Double(barWidth)).rounded())) : ""
            let current = zone.index == zones.current
            lines.append(
                ("\(current ? ">" : " ") Zone \(zone.index + 1)  "
                    + "\(zone.rangeText(unit: unit).padding(toLength: 14, withPad: " ", startingAt: 0))"
                    + " \(duration.clockText.leftPadded(8))"
                    + (zones.activityDurations.map { " " + $0[zone.index].clockText.leftPadded(8) } ?? "") + "  \(bar)",
                 current ? .zone(index: zone.index, count: count) : .plain))
        }
        return lines
    }

    /// `HR  1 0:10  2 5:00 >3 4:12  4 -  5 -`: one line for a short screen.
    private static func compactZones(_ zones: DashboardState.Zones) -> (String, Style) {
        let name = zones.configuration.quantityType == .heartRate ? "HR zones" : "W zones"
        let parts = zones.durations.enumerated().map { index, duration in
            (index == zones.current ? ">" : " ") + "\(index + 1) " + (duration > .zero ? duration.clockText : "-")
        }
        return (name + " " + parts.joined(separator: " "), style(zones))
    }

    /// Heart rate and power in digits five rows high, side by side, in their zone's colour, with
    /// a label row.
    private static func bigFigures(
        _ state: DashboardState, heartZone: DashboardState.Zones?, powerZone: DashboardState.Zones?
    ) -> [(String, Style)] {
        func digits(_ value: Double?) -> [String] {
            let text = value.map { String(Int($0.rounded())) } ?? "--"
            return (0..<5).map { row in text.map { BigDigits.rows[$0]?[row] ?? "   " }.joined(separator: " ") }
        }
        func coloured(_ text: String, _ zones: DashboardState.Zones?) -> String {
            guard let zones, let current = zones.current else { return text }
            return zoneColor(current, of: zones.configuration.zones.count) + text + reset
        }
        let heart = digits(state.heartRate)
        let power = digits(state.power)
        var rows: [(String, Style)] = (0..<5).map { row in
            ("  " + coloured(heart[row], heartZone) + String(repeating: " ", count: 28 - heart[row].count)
                + coloured(power[row], powerZone), .raw)
        }
        rows.append((("  bpm" + currentZone(heartZone)).padding(toLength: 30, withPad: " ", startingAt: 0) + "W" + currentZone(powerZone), .plain))
        return rows
    }

    /// Wraps at spaces to `width` columns; a word longer than the width is cut.
    static func wrapped(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        lines.append(line)
        return lines
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

/// Digits three columns wide and five rows high, in block characters.
enum BigDigits {
    static let rows: [Character: [String]] = [
        "0": ["███", "█ █", "█ █", "█ █", "███"],
        "1": [" █ ", "██ ", " █ ", " █ ", "███"],
        "2": ["███", "  █", "███", "█  ", "███"],
        "3": ["███", "  █", "███", "  █", "███"],
        "4": ["█ █", "█ █", "███", "  █", "  █"],
        "5": ["███", "█  ", "███", "  █", "███"],
        "6": ["███", "█  ", "███", "█ █", "███"],
        "7": ["███", "  █", "  █", "  █", "  █"],
        "8": ["███", "█ █", "███", "█ █", "███"],
        "9": ["███", "█ █", "███", "  █", "███"],
        "-": ["   ", "   ", "███", "   ", "   "],
    ]
}
