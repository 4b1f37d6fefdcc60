import PostgresNIO
import ScanBridgeCore
import ScanBridgeModel

/// A write to the shop's store: one transaction, in turn with every other writer (the change
/// log's lock, taken before any row), bounded in time, after which this counter's replica
/// has followed it. While the store is known to be away, or the replica cannot follow it,
/// the answer is `-32004` naming the store at once; a row the store refuses is the caller's
/// error (`-32002` for a key another row holds, `-32602` for the rest).
struct SharedWrites: Sendable {
    let cards: SharedCards
    let replica: ShopReplica
    let location: SharedStoreLocation
    /// Whether the store was found unreachable, so a write fails at once instead of waiting.
    let isOffline: @Sendable () -> Bool

    /// `before` runs in the write's transaction before its turn (`SharedCards.inTurn`).
    /// `locate` names the batch element a key clash is about (`[3].barcode`), from the
    /// constraint and the key's first value, as a counter's own catalog names it.
    func run<T: Sendable>(
        _ what: String, within limit: Duration? = nil,
        before: (@Sendable (PostgresConnection) async throws -> Void)? = nil,
        locate: (@Sendable (_ constraint: String, _ key: String) -> String?)? = nil,
        _ body: @escaping @Sendable (SharedCards, PostgresConnection) async throws -> T
    ) async throws -> T {
        if isOffline() { throw unreachable(what, because: "it failed at the last attempt") }
        await replica.waitUntilKnown()
        if let refusal = replica.writeRefusal {
            throw ScanBridgeError.unavailable("cannot \(what) in the shop's store \(location): \(refusal)")
        }
        let (result, change): (T, Int64)
        do {
            (result, change) = try await cards.run(what, within: limit) { [cards] connection in
                try await cards.inTurn(on: connection, before: before) { connection in
                    let result = try await body(cards, connection)
                    return (result, try await cards.lastChange(on: connection))
                }
            }
        } catch {
            throw answer(to: SharedStoreError.unwrapped(error), what, locate: locate)
        }
        await replica.waitForChange(change)
        return result
    }

    private func answer(
        to error: any Error, _ what: String, locate: (@Sendable (String, String) -> String?)?
    ) -> any Error {
        if error is ScanBridgeError { return error }
        let reason = SharedStoreError.reason(error)
        switch SharedStoreError.sqlState(error) {
        case "23505"?:
            let clash = SharedStoreError.clash(error)
            return ScanBridgeError(
                .conflict, "the shop's store \(location) already has this: \(reason)",
                field: clash.flatMap { locate?($0.constraint, $0.key) })
        case let state? where state.hasPrefix("22") || state.hasPrefix("23"):
            return ScanBridgeError.invalidParams("the shop's store \(location) refuses this: \(reason)", field: "params")
        case "55P03"?:
            return ScanBridgeError.unavailable(
                "cannot \(what): another transaction holds the shop's store \(location) "
                    + "(a back-office session left open?); nothing was changed, try again")
        case "40P01"?:
            return ScanBridgeError.unavailable(
                "cannot \(what): the shop's store \(location) undid it to end a deadlock; nothing was changed, try again")
        default:
            return unreachable(what, because: reason)
        }
    }

    private func unreachable(_ what: String, because reason: String) -> ScanBridgeError {
        ScanBridgeError.unavailable(
            "cannot \(what): the shop's store \(location) cannot be reached (\(reason)); "
                + "scans and taps go on from this counter's copy, changes wait for the store")
    }
}
