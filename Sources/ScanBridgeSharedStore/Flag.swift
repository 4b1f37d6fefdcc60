import Synchronization

/// A fact that becomes true once and stays so, shared between tasks and closures.
final class Flag: Sendable {
    private let value = Mutex(false)

    var isSet: Bool { value.withLock { $0 } }

    func set() { value.withLock { $0 = true } }
}
