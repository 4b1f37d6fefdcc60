import Synchronization

/// Where the shop's data is kept, and how far this counter's events have been copied there
/// (`bridge.hello`'s `store`, docs/protocol.md "Several counters, one shop").
package struct StoreStatus: Sendable, Hashable {
    package enum Kind: String, Sendable {
        case sqlite, postgresql
    }

    package enum State: String, Sendable {
        case ok, offline
    }

    package var kind: Kind
    package var state: State
    /// Events journaled here and not yet copied to the shop's store; always 0 for SQLite.
    package var copyLag: UInt64
    /// What keeps this counter from following the shop's store although it can reach it
    /// (its own cards and customers, not yet moved there), in a sentence.
    package var problem: String?
    /// Rows of the shop's store this counter's copy leaves out, as no client could have
    /// given them here.
    package var refusedRows: Int

    package init(kind: Kind, state: State, copyLag: UInt64, problem: String? = nil, refusedRows: Int = 0) {
        self.kind = kind
        self.state = state
        self.copyLag = copyLag
        self.problem = problem
        self.refusedRows = refusedRows
    }

    /// The local SQLite database alone: nothing to reach, nothing to copy.
    package static let local = StoreStatus(kind: .sqlite, state: .ok, copyLag: 0)
}
