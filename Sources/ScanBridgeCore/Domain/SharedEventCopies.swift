/// The copies of this counter's events in the shop's shared store (`scan_events`), for what
/// must reach them too: their state for `bridge.hello`, and a customer's erasure.
package protocol SharedEventCopies: Sendable {
    var status: StoreStatus { get }
    /// Takes a customer's personal data out of every copied event that carries it, as
    /// `ScanEvent.erasingCustomer` does, whichever counter's; returns how many it rewrote.
    /// Throws when the store cannot be reached; running it again finishes the job.
    func eraseCustomer(walletAddress: String) async throws -> Int
}
