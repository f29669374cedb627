import CFutex

/// Keeps a consumer thread on the CPU its producer last published from while the batches it
/// takes are small, and lets it run anywhere again when they grow.
///
/// Why: a paced live stream wakes the consumer once per batch of one or two values, and on a
/// virtual machine most of what such a wake-up costs is the wake-up itself. Woken on the CPU that
/// is about to go idle (the producer's, as it goes back to wait), the consumer needs no
/// interprocessor interrupt, does not pull a second CPU out of idle, and finds the ring's lines
/// in that CPU's cache: `sensorbridge-bench bluez` measured the consumer's CPU per notification
/// about 40 % lower (`--acquire-notify`, paced). Why not always: when the producer is busy (a
/// flood), sharing its CPU would take time from it; large batches are the sign, and then the
/// consumer is let go.
///
/// The consumer calls `update` once per batch, on its own thread. `pin` is the system's
/// (`ThreadAffinity`) in use and a recorder in tests.
public struct ConsumerPlacement {
    /// A batch larger than this means the producer is busy: the consumer runs anywhere.
    public static let busyBatch = 64

    /// The CPU the consumer is kept on, nil while it runs anywhere.
    public private(set) var cpu: Int?
    /// Set when the system refused to pin: the placement stops trying.
    public private(set) var refused = false
    private let pin: (Int?) -> Bool

    /// `pin(cpu)` keeps the calling thread on `cpu`, `pin(nil)` lets it run anywhere; each
    /// returns whether the system agreed.
    public init(pin: @escaping (Int?) -> Bool = ThreadAffinity.pinCallingThread(to:)) {
        self.pin = pin
    }

    /// After the consumer took a batch of `count` items published from `producerCPU`.
    public mutating func update(batch count: Int, producerCPU: Int?) {
        guard !refused else { return }
        if count > Self.busyBatch {
            if cpu != nil {
                _ = pin(nil)
                cpu = nil
            }
            return
        }
        guard let producerCPU, producerCPU != cpu else { return }
        if pin(producerCPU) {
            cpu = producerCPU
        } else {
            refused = true
            if cpu != nil { _ = pin(nil) }
            cpu = nil
        }
    }
}

/// The CPU the calling thread runs on, and keeping it on one.
public enum ThreadAffinity {
    /// The CPU the calling thread runs on now, nil when the kernel cannot say. No system call.
    public static var currentCPU: Int? {
        let cpu = ccpu_current()
        return cpu >= 0 ? Int(cpu) : nil
    }

    /// Keeps the calling thread on `cpu`, or with nil lets it run on any CPU the process's main
    /// thread may use. Returns whether the kernel agreed (it refuses a CPU outside the process's
    /// cpuset).
    @discardableResult
    public static func pinCallingThread(to cpu: Int?) -> Bool {
        guard let cpu else { return ccpu_unpin_calling_thread() == 0 }
        guard let narrow = Int32(exactly: cpu) else { return false }
        return ccpu_pin_calling_thread(narrow) == 0
    }
}
