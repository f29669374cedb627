import DBus
import Foundation
import Session

/// The options of `record` and `serve` that tune the live path from BlueZ to the workout:
/// how notifications are read, and how long a value may wait for the consumer while values stream in.
struct LivePathOptions {
    static let options: Set<String> = ["latency-budget"]
    static let flags: Set<String> = ["acquire-notify", "no-acquire-notify"]
    static let help = """
          --no-acquire-notify        read notifications as D-Bus signals (StartNotify) even where BlueZ
                                     offers an AcquireNotify socket (the default, --acquire-notify,
                                     reads the socket)
          --latency-budget MS        while values stream in faster than one per MS milliseconds, take them
                                     in batches at most MS old instead of waking for each (default 10; 0:
                                     wake for every value); a slower stream is applied as it arrives
        """

    /// Read through `AcquireNotify` sockets where offered.
    var acquireNotify: Bool
    var latencyBudget: Duration

    init(_ arguments: CommandArguments) throws(UsageError) {
        if arguments.has("acquire-notify") && arguments.has("no-acquire-notify") {
            throw UsageError("give --acquire-notify (the default) or --no-acquire-notify, not both")
        }
        acquireNotify = !arguments.has("no-acquire-notify")
        let milliseconds = try arguments.number("latency-budget", in: 0...1000)
        latencyBudget = milliseconds.map { .microseconds(Int64(($0 * 1000).rounded())) } ?? WorkoutSession.defaultLatencyBudget
    }

    /// Applies the budget to the reading of packet sockets on `bus`.
    func apply(to bus: DBusConnection) {
        bus.batchPackets(within: latencyBudget)
    }
}
