package import ScanBridgeCore
import ScanBridgeModel
import Synchronization

/// The one `ScannerSelection` the evdev, hidpos and serial drivers share, changed live by the
/// operator's claims and releases. Every running `DiscoveredReaders` watches it: a change makes
/// each one look again at the nodes it knows, starting and stopping readers to match.
package final class ScannerChoices: Sendable {
    struct Watcher: Sendable {
        /// Called after a change, outside the lock; must return at once.
        let changed: @Sendable () -> Void
        let candidates: @Sendable () -> [ScannerCandidate]
    }

    private struct State {
        var selection: ScannerSelection
        var watchers: [Int: Watcher] = [:]
        var nextToken = 0
    }

    private let state: Mutex<State>

    package init(_ selection: ScannerSelection = ScannerSelection()) {
        state = Mutex(State(selection: selection))
    }

    package var selection: ScannerSelection {
        state.withLock { $0.selection }
    }

    /// The operator's choice for `key` (a parsed `ScannerKey`), in force at once.
    package func choose(_ choice: ScannerSelection.Choice, for key: String) {
        let watchers = state.withLock { state in
            state.selection.operatorChoices[key] = choice
            return Array(state.watchers.values)
        }
        for watcher in watchers { watcher.changed() }
    }

    /// Every node the running drivers' discovery knows, by driver then id.
    package func candidates() -> [ScannerCandidate] {
        let watchers = state.withLock { Array($0.watchers.values) }
        return watchers.flatMap { $0.candidates() }.sorted { ($0.driver, $0.id) < ($1.driver, $1.id) }
    }

    func watch(_ watcher: Watcher) -> Int {
        state.withLock { state in
            defer { state.nextToken += 1 }
            state.watchers[state.nextToken] = watcher
            return state.nextToken
        }
    }

    func unwatch(_ token: Int) {
        _ = state.withLock { $0.watchers.removeValue(forKey: token) }
    }
}
