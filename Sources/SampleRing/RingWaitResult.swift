/// How a wait on a ring (or a group of rings) ended.
public enum RingWaitResult: Sendable, Hashable {
    /// There are elements to pop or drain.
    case ready
    /// The timeout passed and there was still nothing to read.
    case timedOut
}
