public import Foundation
public import SensorCore
import Synchronization
public import Zones

/// The workout builder for threads: one lock around the pure `WorkoutStateMachine`, and its
/// outputs (zone updates, state changes, events, statistics) as an `AsyncStream`.
///
/// Mirrors HealthKit's `HKLiveWorkoutBuilder`: set custom zones before `beginCollection`, add
/// samples, pause and resume, end, then finish (or discard).
public final class LiveWorkoutBuilder: Sendable {
    private let machine: Mutex<WorkoutStateMachine>
    private let continuation: AsyncStream<WorkoutBuilderOutput>.Continuation
    /// Everything the builder reports, in order. Keeps the newest 256 outputs when nobody reads.
    public let outputs: AsyncStream<WorkoutBuilderOutput>
    /// Called with each update's outputs, on the updating thread, under no lock (the session's
    /// event stream).
    private let observers = Mutex<[@Sendable ([WorkoutBuilderOutput]) -> Void]>([])

    public init(_ machine: WorkoutStateMachine) {
        self.machine = Mutex(machine)
        (outputs, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
    }

    /// Runs `body` on the state machine under the lock, then publishes what it produced.
    public func update<T>(_ body: (inout WorkoutStateMachine) throws(WorkoutBuilderError) -> T) throws(WorkoutBuilderError) -> T {
        // Filled inside, returned beside: a (T, [Output]) tuple would cost a generic metadata
        // lookup on every call, which is every batch of the session's consumer.
        var produced: [WorkoutBuilderOutput] = []
        let result = try machine.withLock { (m) throws(WorkoutBuilderError) -> T in
            let result = try body(&m)
            while let output = m.nextOutput() { produced.append(output) }
            return result
        }
        for output in produced { continuation.yield(output) }
        if !produced.isEmpty { for observer in observers.withLock({ $0 }) { observer(produced) } }
        if case .state(let state)? = produced.last, state == .finished || state == .discarded { continuation.finish() }
        return result
    }

    /// Calls `observer` with the outputs of every later update, in order, on the thread that
    /// updates: it must not wait.
    public func observe(_ observer: @escaping @Sendable ([WorkoutBuilderOutput]) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    public var state: WorkoutBuilderState { machine.withLock { $0.state } }

    public func setCustomZoneConfiguration(_ configuration: WorkoutZoneConfiguration) throws(WorkoutBuilderError) {
        try update { (m) throws(WorkoutBuilderError) in try m.setCustomZoneConfiguration(configuration) }
    }

    public func zoneConfiguration(for type: QuantityType) -> WorkoutZoneConfiguration? {
        machine.withLock { $0.zoneConfiguration(for: type) }
    }

    public func beginCollection(at time: Duration, date: Date) throws(WorkoutBuilderError) {
        try update { (m) throws(WorkoutBuilderError) in try m.beginCollection(at: time, date: date) }
    }

    public func add(_ samples: some Sequence<Sample>) {
        try? update { m in for sample in samples { m.add(sample) } }
    }

    public func pause(at time: Duration) throws(WorkoutBuilderError) {
        try update { (m) throws(WorkoutBuilderError) in try m.pause(at: time) }
    }

    public func resume(at time: Duration) throws(WorkoutBuilderError) {
        try update { (m) throws(WorkoutBuilderError) in try m.resume(at: time) }
    }

    public func endCollection(at time: Duration) throws(WorkoutBuilderError) {
        try update { (m) throws(WorkoutBuilderError) in try m.endCollection(at: time) }
    }

    public func finishWorkout() throws(WorkoutBuilderError) -> Workout {
        try update { (m) throws(WorkoutBuilderError) in try m.finishWorkout() }
    }

    public func discard() throws(WorkoutBuilderError) {
        try update { (m) throws(WorkoutBuilderError) in try m.discard() }
    }
}
