import BlueZ
import Foundation
import Outputs
import SensorCore
import Session
import Synchronization
import Workouts
import Zones

/// The live `record` dashboard on a terminal: a thread redraws `DashboardRenderer`'s frame in
/// place four times a second on standard error (cursor home, each line cleared to its end, the
/// rest of the screen cleared below: no full clear, so no flicker), with the cursor hidden until
/// `stop`. Its model follows the session's event stream (samples, zone updates, pauses, laps,
/// sensor states) and the link events; its keys control the session.
///
/// Used only when standard error is a terminal and the process owns the recording (its own
/// signals end it); otherwise `record` prints plain progress lines.
final class TerminalDashboard: Sendable {
    static let interval = Duration.milliseconds(250)
    static let hideCursor = "\u{1B}[?25l"
    static let showCursor = "\u{1B}[?25h"

    private let model: Mutex<DashboardModel>
    private let anchor: ContinuousClock.Instant
    private let output = FileHandle.standardError
    private let stopping = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let keyboard = TerminalKeys()

    /// A dashboard when standard error is a terminal (and not `TERM=dumb`) and nobody else
    /// controls the recording; nil otherwise.
    static func forTerminal(
        _ context: CommandContext, anchor: ContinuousClock.Instant, model: DashboardModel
    ) -> TerminalDashboard? {
        guard context.recordingControl == nil, isatty(STDERR_FILENO) == 1, context.environment["TERM"] != "dumb" else {
            return nil
        }
        return TerminalDashboard(anchor: anchor, model: model)
    }

    init(anchor: ContinuousClock.Instant, model: DashboardModel) {
        self.anchor = anchor
        self.model = Mutex(model)
    }

    /// A message for the person, shown under the sensors.
    func show(_ message: String) {
        let now = ContinuousClock.now - anchor
        model.withLock { $0.show(message, at: now) }
    }

    /// The relay's state, for its line.
    func showRelay(_ status: RelayStatus) {
        model.withLock { $0.relay = status }
    }

    func linkEvent(_ event: SensorLinkEvent) {
        let now = ContinuousClock.now - anchor
        model.withLock { $0.apply(event, now: now, anchor: anchor) }
    }

    /// Starts drawing, following the session's event stream until the workout finishes, and, when
    /// standard input is a terminal, reading its keys: space pauses and resumes, `l` marks a lap,
    /// `q` ends and saves (the terminal is in raw mode meanwhile and given back by `stop`).
    func start(_ events: SessionSubscription, controls: SessionControls) {
        let reader = Thread { [self] in
            Thread.nameCurrent("sb.dash.events")
            while !events.isFinished {
                guard let event = events.next(timeout: .seconds(1)) else { continue }
                model.withLock { m in
                    switch event {
                    case .sample(let sample): m.add(sample)
                    case .output(let output): m.apply(output)
                    case .dropped(let count):
                        m.show("the display fell behind: \(count) updates skipped", at: ContinuousClock.now - anchor)
                    }
                }
            }
        }
        reader.start()
        if keyboard.start() {
            model.withLock { $0.keys = true }
            let keys = Thread { [self] in
                Thread.nameCurrent("sb.dash.keys")
                while let key = keyboard.next() {
                    switch key {
                    case " ": controls.togglePause()
                    case "l", "L": controls.lap()
                    case "n", "N":
                        if controls.nextActivity() == nil {
                            model.withLock {
                                $0.show("no activity comes next: give record --activities A,B,...", at: ContinuousClock.now - anchor)
                            }
                        }
                    case "q", "Q": controls.end()
                    default: break
                    }
                }
            }
            keys.start()
        }
        let thread = Thread { [self] in
            Thread.nameCurrent("sb.dashboard")
            draw()
            finished.signal()
        }
        thread.start()
    }

    /// Draws a last frame and gives the cursor back, below the dashboard.
    func stop() {
        keyboard.stop()
        stopping.signal()
        finished.wait()
    }

    private func draw() {
        var renderer = DashboardRenderer()
        write(Self.hideCursor + "\u{1B}[2J")
        while true {
            let stop = stopping.wait(timeout: .now() + Self.interval.seconds) == .success
            let (columns, rows) = Self.size()
            let state = model.withLock { $0.state(at: ContinuousClock.now - anchor) }
            let frame = renderer.render(state, width: columns, height: rows - 1)
            let lines = frame.lines.prefix(max(rows - 1, 1))
            write(
                "\u{1B}[H" + lines.map { $0 + "\u{1B}[K\n" }.joined() + "\u{1B}[J" + (frame.bell ? "\u{07}" : "")
                    + (stop ? Self.showCursor : ""))
            if stop { return }
        }
    }

    private func write(_ text: String) {
        try? output.write(contentsOf: Data(text.utf8))
    }

    /// The terminal's columns and rows (TIOCGWINSZ on standard error; else `COLUMNS`/`LINES`; else 80 × 24).
    static func size() -> (columns: Int, rows: Int) {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return (Int(size.ws_col), size.ws_row > 0 ? Int(size.ws_row) : 24)
        }
        let environment = ProcessInfo.processInfo.environment
        return (environment["COLUMNS"].flatMap(Int.init) ?? 80, environment["LINES"].flatMap(Int.init) ?? 24)
    }
}
