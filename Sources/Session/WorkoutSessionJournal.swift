/// Where a session's consumer thread keeps what it has applied, so that a crash loses little
/// (DESIGN.md §3 "Storage"). `WorkoutStoreJournal` writes it to the workout store; the session
/// itself knows nothing of storage.
public protocol WorkoutSessionJournal: Sendable {
    /// Called on the consumer thread after it applied `items` to the builder (refused ones
    /// included: they are refused again when the journal is replayed), and with no items when it
    /// woke without any, at least every `tickInterval`. `droppedSamples` is the running total of
    /// samples refused by full rings.
    func consumerApplied(_ items: ArraySlice<SessionItem>, droppedSamples: Int)
}
