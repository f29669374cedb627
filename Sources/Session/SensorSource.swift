public import SampleRing

/// Where a session's items come from: live BlueZ links (`LiveSensors`), a replayed trace or
/// capture (`TraceReplayer`), a test's fixture. Every source enters the session the same way, as
/// `SessionItem`s in a ring of its own, decoded by `NotificationDecoder`.
public protocol SensorSource: Sendable {
    /// Runs on a producer thread of its own: pushes the source's items into `ring` (its own, one
    /// pusher), then `end` once its input ends or it is asked to stop. `started` is t = 0 on the
    /// monotonic clock, for sources that keep a pace.
    func produce(into ring: SampleRing<SessionItem>, started: ContinuousClock.Instant)
}

extension TraceReplayer: SensorSource {}
