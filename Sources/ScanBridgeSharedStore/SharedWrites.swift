import PostgresNIO
import ScanBridgeCore
import ScanBridgeModel

/// A write to the shop's store: one transaction, in turn with every other writer (the change
/// log's lock, taken before any row, so two writers never hold rows the other waits for),
/// bounded in time, after which this counter's replica has followed it. While the store is away, or the replica cannot follow it, the answer is
/// `-32004` naming the store, at once rather than when the pool gives up; a row the store
/// refuses is the caller's error.
struct SharedWrites: Sendable {
    let cards: SharedCards
    let replica: CardReplica
    let location: SharedStoreLocation

    func run<T: Sendable>(
        _ what: String, _ body: @escaping @Sendable (SharedCards, PostgresConnection) async throws -> T
    ) async throws -> T {
        await replica.waitUntilKnown()
        if let refusal = replica.writeRefusal {
            throw ScanBridgeError.unavailable("cannot \(what) in the shop's store \(location): \(refusal)")
        }
        let (result, change): (T, Int64)
        do {
            (result, change) = try await cards.run(what) { [cards] connection in
                try await cards.inTurn(on: connection) { connection in
                    let result = try await body(cards, connection)
                    return (result, try await cards.lastChange(on: connection))
                }
            }
        } catch let error as ScanBridgeError {
            throw error
        } catch  where SharedStoreError.sqlState(error).map(Self.isRowRefused) == true {
            throw ScanBridgeError.invalidParams(
                "the shop's store \(location) refuses this: \(SharedStoreError.reason(error))", field: "params")
        } catch {
            throw ScanBridgeError.unavailable(
                "cannot \(what): the shop's store \(location) cannot be reached (\(SharedStoreError.reason(error))); "
                    + "taps and lookups go on from this counter's copy, changes wait for the store")
        }
        await replica.waitForChange(change)
        return result
    }

    /// SQLSTATE class 22 (data exception) and 23 (integrity constraint violation): the row,
    /// not the store.
    static func isRowRefused(_ state: String) -> Bool {
        state.hasPrefix("22") || state.hasPrefix("23")
    }
}
