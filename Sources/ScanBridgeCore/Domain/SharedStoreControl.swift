/// The shop's shared store, for the methods that reach it beyond the repositories: its state
/// for `bridge.hello`, a customer's erasure from the copied events, and the move of this
/// counter's own cards and customers into it.
package protocol SharedStoreControl: Sendable {
    var status: StoreStatus { get }
    /// Takes a customer's personal data out of every copied event that carries it, as
    /// `ScanEvent.erasingCustomer` does, whichever counter's; returns how many it rewrote.
    /// Throws when the store cannot be reached; running it again finishes the job.
    func eraseCustomer(walletAddress: String) async throws -> Int
    /// Moves the products, cards, customers and repair orders this counter holds into the shop's store, all
    /// or nothing, after which this counter follows the shop's. `address`, when given, must name
    /// the store this daemon uses.
    func moveOwnData(expecting address: String?) async throws -> MovedToSharedStore
    /// Brings the shop's schema up to date as the role that owns its tables (`owner`, a URL
    /// of the store this daemon uses with that role), and grants the counters' roles what
    /// they need; returns the versions applied.
    func migrateSchema(owner address: String, password: String?) async throws -> [Int]
}

/// What `store.migrate` moved.
package struct MovedToSharedStore: Sendable, Hashable {
    package var customers = 0
    package var cards = 0
    /// Products taken there; those the shop already had under their id are not counted.
    package var products = 0
    /// Repair orders taken there, likewise.
    package var orders = 0

    package init() {}
}
