import Logging
import ScanBridgeCore
import ScanBridgeStore
import ServiceLifecycle

#if SharedStore
import ScanBridgeSharedStore
#endif

/// The shop's shared store as the daemon wires it in: a service of the group, the counter's
/// repositories over it, and its state for the router and the metrics.
protocol ShopStoreService: SharedStoreControl, Service {
    var isOffline: Bool { get }
    func repositories(over local: Repositories) -> Repositories
}

#if SharedStore
extension SharedStore: ShopStoreService {}

/// Rung on every commit, for the copy of the events to the shop's store.
typealias CommitBell = Doorbell
#else
/// Nothing to ring without the shop's store (never made).
struct CommitBell {
    func ring() {}
}
#endif

extension Daemon {
    /// The bell the journal rings on each commit, when the settings name a shop's store.
    func commitBell() -> CommitBell? {
        #if SharedStore
        settings.sharedStore.map { _ in Doorbell() }
        #else
        nil
        #endif
    }

    /// The shop's store when the settings name one; nil for the local database alone, and in a
    /// build without the `SharedStore` trait (whose settings refuse `store.url`).
    func sharedStore(
        journal: SQLiteJournal, doorbell: CommitBell?, replica: SQLiteShopReplica
    ) -> (any ShopStoreService)? {
        #if SharedStore
        guard let location = settings.sharedStore, let doorbell else { return nil }
        return SharedStore(
            location: location, counter: settings.counter, journal: journal, doorbell: doorbell,
            replica: replica, timing: settings.sharedStoreTiming, retention: settings.sharedStoreRetention, logger: logger)
        #else
        return nil
        #endif
    }
}
