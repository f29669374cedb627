import BlueZ
import DBus
import Foundation
import Outputs
import Session

/// The options of `record` and `serve` that tune the live path from BlueZ to the workout:
/// how notifications are read, and how long a value may wait for the consumer while values stream in.
struct LivePathOptions {
    static let options: Set<String> = ["latency-budget"]
    static let flags: Set<String> = ["acquire-notify", "no-acquire-notify", "auto-connect"]
    static let help = """
          --acquire-notify           read notifications through AcquireNotify sockets wherever offered;
                                     by default only where BlueZ is 5.84 or later, since older releases
                                     can leave a sensor unreadable after a drop while it subscribes
          --no-acquire-notify        read notifications as D-Bus signals (StartNotify) only
          --auto-connect             also have BlueZ reconnect the sensors by itself (a GattProfile1 for
                                     their services: the kernel connects them as soon as they advertise).
                                     BlueZ then keeps every known sensor offering those services
                                     connected whenever in range, even after sensorbridge stops, until
                                     bluetoothd restarts: for a box dedicated to its sensors
          --latency-budget MS        while values stream in faster than one per MS milliseconds, take them
                                     in batches at most MS old instead of waking for each (default 10; 0:
                                     wake for every value); a slower stream is applied as it arrives
        """

    var notifyPath: NotifyPath
    /// Register the sensors' auto-connect profile (`SensorProfile`).
    var autoConnect: Bool
    var latencyBudget: Duration

    init(_ arguments: CommandArguments) throws(UsageError) {
        if arguments.has("acquire-notify") && arguments.has("no-acquire-notify") {
            throw UsageError("give --acquire-notify or --no-acquire-notify, not both (without either, sockets are used where BlueZ is 5.84 or later)")
        }
        notifyPath = arguments.has("acquire-notify") ? .acquire : arguments.has("no-acquire-notify") ? .start : .automatic
        autoConnect = arguments.has("auto-connect")
        let milliseconds = try arguments.number("latency-budget", in: 0...1000)
        latencyBudget = milliseconds.map { .microseconds(Int64(($0 * 1000).rounded())) } ?? WorkoutSession.defaultLatencyBudget
    }

    /// Applies the budget to the reading of packet sockets on `bus`.
    func apply(to bus: DBusConnection) {
        bus.batchPackets(within: latencyBudget)
    }
}
