import DriverKit
import Logging
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeStore
import Synchronization

/// The operator's claims and releases (`devices.claim|release`): saved in the store first,
/// so a choice the database refuses changes nothing, then put in force in the drivers'
/// shared `ScannerChoices`, whose discovery readers start or stop reading at once.
final class ScannerClaims: ScannerControl {
    let choices: ScannerChoices
    let store: SQLiteScannerOverrides
    let logger: Logger
    /// The last choice being saved: each waits for the one before, so two admins choosing
    /// for one key at once leave the store and the drivers with the same, later, choice.
    private let last = Mutex<Task<Void, Never>?>(nil)

    init(choices: ScannerChoices, store: SQLiteScannerOverrides, logger: Logger) {
        self.choices = choices
        self.store = store
        self.logger = logger
    }

    /// Puts the choices saved by an earlier run in force, over the config's. Blocking (a
    /// database read): at start, before the drivers run.
    static func restored(choices: ScannerChoices, store: SQLiteScannerOverrides, logger: Logger) throws -> ScannerClaims {
        for (key, saved) in try store.all() {
            guard let choice = ScannerSelection.Choice(rawValue: saved) else { continue }
            choices.choose(choice, for: key)
        }
        return ScannerClaims(choices: choices, store: store, logger: logger)
    }

    func claim(_ id: String) async throws -> ScannerOverrides {
        try await choose(.claim, for: try Self.key(id))
    }

    func release(_ id: String) async throws -> ScannerOverrides {
        let key = try Self.key(id)
        let inForce = choices.selection.overrides
        let isRead = candidates().contains { $0.read && ($0.id.lowercased() == key || $0.usb == key) }
        guard inForce.claimed.contains(key) || inForce.released.contains(key) || isRead else {
            throw ScanBridgeError.notFound(
                "\(id) is not claimed, and no device read now has that id or vvvv:pppp: there is nothing to release; `scanbridge devices candidates` lists what discovery sees"
            )
        }
        return try await choose(.release, for: key)
    }

    func candidates() -> [ScannerCandidate] {
        choices.candidates()
    }

    private func choose(_ choice: ScannerSelection.Choice, for key: String) async throws -> ScannerOverrides {
        let saving = last.withLock { last in
            let before = last
            let saving = Task { [store, choices, logger] in
                await before?.value
                try await store.save(choice.rawValue, for: key)
                choices.choose(choice, for: key)
                logger.info("the operator's \(choice.rawValue) of \(key) is saved and in force")
            }
            last = Task { _ = try? await saving.value }
            return saving
        }
        try await saving.value
        return overrides
    }

    var overrides: ScannerOverrides {
        let inForce = choices.selection.overrides
        return ScannerOverrides(claimed: inForce.claimed, released: inForce.released)
    }

    private static func key(_ id: String) throws -> String {
        switch ScannerKey.parse(id) {
        case .success(let key): return key
        case .failure(let error): throw ScanBridgeError.invalidParams(error.description, field: "id")
        }
    }
}
