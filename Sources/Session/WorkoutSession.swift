import Foundation
public import SampleRing
import SensorCore
import Synchronization
public import Workouts

/// One recording: producers push `SessionItem`s into their own rings; one consumer thread drains
/// them all into the `LiveWorkoutBuilder` until an `end` item arrives, and hands what it applied to
/// the journal, when there is one. The same session serves a replayed trace and live sensors; only
/// the producers differ.
public final class WorkoutSession: Sendable {
    public let builder: LiveWorkoutBuilder
    public let rings = SampleRingGroup<SessionItem>()
    /// How often the consumer wakes without items, to notice stale sensors.
    public let tickInterval: Duration
    /// How long an item may wait for the consumer while items stream in (zero: the consumer wakes
    /// for every push). See `consume()`.
    public let latencyBudget: Duration
    /// Whether the consumer shares its producer's CPU while batches are small (`ConsumerPlacement`):
    /// live recordings, whose producer is the D-Bus thread.
    public let followsProducerCPU: Bool
    /// The session clock for ticks while nothing arrives: nil for replay at full speed, where
    /// time is the latest item's time.
    private let now: (@Sendable () -> Duration)?
    private let journal: (any WorkoutSessionJournal)?
    private let state = Mutex(ConsumerState())
    private let naps = Atomic<Int>(0)
    /// The outputs following the event stream.
    private let subscribers = Subscribers()

    final class Subscribers: Sendable {
        let list = Mutex<[SessionSubscription]>([])
        /// Whether any subscriber takes samples: read by the consumer once per batch.
        let wantSamples = Atomic<Bool>(false)
    }

    struct ConsumerState {
        var warnings: [String] = []
        var result: Result<Workout, WorkoutBuilderError>?
    }

    /// The default `latencyBudget` of a live recording: a sample waits at most this long before
    /// it is applied, and the live outputs (dashboard, zone updates) see it this much later at worst.
    public static let defaultLatencyBudget = Duration.milliseconds(10)

    public init(
        builder: LiveWorkoutBuilder, tickInterval: Duration = .milliseconds(250), now: (@Sendable () -> Duration)? = nil,
        latencyBudget: Duration = .zero, followsProducerCPU: Bool = false, journal: (any WorkoutSessionJournal)? = nil
    ) {
        self.builder = builder
        self.tickInterval = tickInterval
        self.latencyBudget = latencyBudget
        self.followsProducerCPU = followsProducerCPU
        self.now = now
        self.journal = journal
        builder.observe { [subscribers] outputs in
            for subscriber in subscribers.list.withLock({ $0 }) {
                for output in outputs { subscriber.publish(.output(output)) }
            }
        }
    }

    /// A new output following the session's event stream from now on: the builder's outputs, and
    /// samples when `samples`. It never slows the session: past `capacity` unread events it drops
    /// (samples and statistics first) and says so.
    public func subscribe(capacity: Int = 1024, samples: Bool = true) -> SessionSubscription {
        let subscription = SessionSubscription(capacity: capacity, wantsSamples: samples)
        subscribers.list.withLock { $0.append(subscription) }
        if samples { subscribers.wantSamples.store(true, ordering: .releasing) }
        return subscription
    }

    /// Control of this session from any thread (keys, signals, the API). `clock` stamps the
    /// controls (the session's clock: the time since its anchor); `end` makes its sources finish;
    /// `onControl` sees each control pushed (the trace writer); `activities` is what "next
    /// activity" steps through. Make it before `run`.
    public func makeControls(
        clock: @escaping @Sendable () -> Duration, end: @escaping @Sendable () -> Void,
        activities: ActivityPlan = ActivityPlan([.cycling]), onControl: @escaping @Sendable (SessionControl) -> Void = { _ in }
    ) -> SessionControls {
        SessionControls(
            ring: makeRing(capacity: 64), builder: builder, activities: activities, clock: clock, end: end, onControl: onControl)
    }

    /// Runs the session with `sources`, each on a producer thread of its own with a ring of its own;
    /// `started` is t = 0 for sources that keep a pace.
    public func run(sources: [any SensorSource], started: ContinuousClock.Instant = .now) -> Result<Workout, WorkoutBuilderError> {
        let fed = sources.map { ($0, makeRing()) }
        return run(producers: fed.map { source, ring in { source.produce(into: ring, started: started) } })
    }

    /// A ring for one producer thread.
    public func makeRing(capacity: Int = 1 << 14) -> SampleRing<SessionItem> {
        rings.makeRing(capacity: capacity)
    }

    /// How many times the consumer napped for the latency budget (see `consume()`), for diagnostics.
    public var consumerNaps: Int {
        // Relaxed: a statistic.
        naps.load(ordering: .relaxed)
    }

    /// Impossible events that were skipped (a resume while not paused, say), for the person to read.
    public var warnings: [String] { state.withLock { $0.warnings } }

    /// Runs the consumer on its own thread and the producers each on theirs; returns the finished
    /// workout once a producer has pushed `end` and everything before it is processed.
    public func run(producers: [@Sendable () -> Void]) -> Result<Workout, WorkoutBuilderError> {
        let done = DispatchSemaphore(value: 0)
        let consumer = Thread { [self] in
            // Named on the thread itself, for the kernel too (`Thread.nameCurrent`).
            Thread.nameCurrent("sb.consumer")
            consume()
            done.signal()
        }
        consumer.start()
        for (index, producer) in producers.enumerated() {
            let thread = Thread {
                Thread.nameCurrent("sb.producer.\(index)")
                producer()
            }
            thread.start()
        }
        done.wait()
        return state.withLock { $0.result! }
    }

    /// The consumer loop. Quiet, it parks and a push wakes it at once. When items arrive faster
    /// than once per `latencyBudget` (two batches closer than that), a wake-up per item costs more
    /// than it is worth (here a wake-up costs about as much CPU as applying a dozen samples): the
    /// consumer naps for the budget instead, without asking the producers to wake it, and takes
    /// what came meanwhile in one batch; the first nap that brings nothing returns it to parking.
    /// So a sample waits at most the budget, and a slow stream (a real sensor's 1 to 4 values a
    /// second) is applied the moment it arrives. A replay at full speed (budget zero) never naps:
    /// there the consumer spins briefly instead, as its producer refills the ring sooner than a
    /// wake-up would arrive.
    private func consume() {
        var batch: [SessionItem] = []
        batch.reserveCapacity(4096)
        var latest = Duration.zero
        var previousBatch = 0
        var napping = false
        var lastBatch: ContinuousClock.Instant?
        var placement = followsProducerCPU ? ConsumerPlacement() : nil
        while true {
            if napping {
                // Relaxed: a statistic.
                naps.wrappingAdd(1, ordering: .relaxed)
                rings.nap(for: latencyBudget)
            }
            if rings.drain(into: &batch) == 0 {
                napping = false
                if previousBatch >= 16 && latencyBudget == .zero {
                    let deadline = ContinuousClock.now + .microseconds(50)
                    while batch.isEmpty, ContinuousClock.now < deadline {
                        sched_yield()
                        rings.drain(into: &batch)
                    }
                }
                if batch.isEmpty {
                    previousBatch = 0
                    if rings.wait(timeout: tickInterval) == .timedOut {
                        let time = now?() ?? latest
                        try? builder.update { $0.tick(at: time) }
                        journal?.consumerApplied([], droppedSamples: rings.droppedCount)
                    }
                    continue
                }
            }
            if latencyBudget > .zero && !napping {
                let woke = ContinuousClock.now
                napping = lastBatch.map { woke - $0 < latencyBudget } ?? false
                lastBatch = woke
            }
            previousBatch = batch.count
            placement?.update(batch: batch.count, producerCPU: rings.producerCPU)
            // Items of several rings are merged by time; one ring's items are in order already
            // and keep it (a stable merge: an event and a sample at the same time stay as pushed).
            // A batch already in order (one live notification's samples, mostly) is left as it is.
            if batch.count > 1, zip(batch, batch.dropFirst()).contains(where: { $0.time > $1.time }), rings.rings.count > 1 {
                batch = batch.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
                    .map(\.element)
            }
            var ended = false
            var applied = 0
            var warnings: [String] = []
            try? builder.update { m in
                for item in batch {
                    latest = max(latest, item.time)
                    if ended { break }
                    applied += 1
                    ended = Self.apply(item, to: &m, warnings: &warnings)
                }
                m.tick(at: now?() ?? latest)
            }
            journal?.consumerApplied(batch[..<applied], droppedSamples: rings.droppedCount)
            if subscribers.wantSamples.load(ordering: .acquiring) { publishSamples(batch[..<applied]) }
            batch.removeAll(keepingCapacity: true)
            if !warnings.isEmpty { state.withLock { $0.warnings += warnings } }
            if ended { break }
        }
        let dropped = rings.droppedCount
        let result = Result { () throws(WorkoutBuilderError) -> Workout in
            try builder.update { m in m.count(dropped: dropped) }
            return try builder.finishWorkout()
        }
        state.withLock { $0.result = result }
        for subscriber in subscribers.list.withLock({ $0 }) { subscriber.finish() }
    }

    private func publishSamples(_ items: ArraySlice<SessionItem>) {
        let takers = subscribers.list.withLock { $0.filter(\.wantsSamples) }
        for item in items {
            guard case .sample(let sample) = item else { continue }
            for subscriber in takers { subscriber.publish(.sample(sample)) }
        }
    }

    /// Applies one item; true when it ended the workout. An impossible event (a resume while not
    /// paused) is skipped with a warning.
    static func apply(_ item: SessionItem, to m: inout WorkoutStateMachine, warnings: inout [String]) -> Bool {
        do {
            return try apply(item, to: &m)
        } catch {
            warnings.append("at \(item.time.seconds) s: \(error); the event was skipped")
            return false
        }
    }

    private static func apply(_ item: SessionItem, to m: inout WorkoutStateMachine) throws(WorkoutBuilderError) -> Bool {
        switch item {
        case .sample(let sample):
            m.add(sample)
        case .control(let c):
            switch c.kind {
            case .pause: try m.pause(at: c.time)
            case .resume: try m.resume(at: c.time)
            case .lap: try m.lap(at: c.time)
            case .activity: try m.beginActivity(c.activityType, at: c.time)
            case .disconnected: m.sensorLost(c.sensor, at: c.time)
            case .connected: m.sensorRegained(c.sensor, at: c.time)
            case .malformed: m.count(malformed: 1)
            case .noContact: m.sensorValues(c.sensor, .noContact, at: c.time)
            case .invalidValues: m.sensorValues(c.sensor, .invalid, at: c.time)
            case .end:
                try m.endCollection(at: c.time)
                return true
            }
        }
        return false
    }
}
