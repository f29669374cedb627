public import BlueZ
import Foundation
public import SampleRing

/// Live sensors as a session's source: keeps the BlueZ links up from the start until `control`
/// is stopped (or `duration` runs out), then stops them and pushes the end, which so comes after
/// every notification they delivered. Notifications and link events travel on the D-Bus thread
/// through `source` into its own ring; this source's ring carries the end.
public struct LiveSensors: SensorSource {
    public let links: SensorLinks
    public let source: LiveSensorSource
    public let control: RecordingControl
    public let duration: Duration?
    /// Called every 10 s while recording, with the time since the anchor (progress lines).
    public let progress: (@Sendable (Duration) -> Void)?

    public init(
        links: SensorLinks, source: LiveSensorSource, control: RecordingControl, duration: Duration? = nil,
        progress: (@Sendable (Duration) -> Void)? = nil
    ) {
        self.links = links
        self.source = source
        self.control = control
        self.duration = duration
        self.progress = progress
    }

    public func produce(into ring: SampleRing<SessionItem>, started: ContinuousClock.Instant) {
        links.start()
        let deadline = duration.map { ContinuousClock.now + $0 }
        while true {
            let left = deadline.map { $0 - .now }
            if control.wait(timeout: left.map { min($0, .seconds(10)) } ?? .seconds(10)) { break }
            if let deadline, ContinuousClock.now >= deadline { break }
            progress?(source.time(.now))
        }
        // No notification is pushed after `stop` returns, so `end` comes after every one of them.
        links.stop()
        let end = source.time(.now)
        source.writeEnd(at: end)
        _ = ring.push(.control(SessionControl(.end, at: end)))
    }
}
