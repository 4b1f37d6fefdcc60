import Logging
import ScanBridgeCore
import ScanBridgeModel
import Synchronization

/// `usb.auto_reset_after_errors`: resets the USB port of a device that keeps failing, as
/// `ResetPolicy` decides, with `DeviceResets` (logged and counted as any reset).
final class AutoReset: Sendable {
    private let policy: Mutex<ResetPolicy>
    private let resets: DeviceResets
    private let logger: Logger

    init(afterErrors errors: Int, resets: DeviceResets, logger: Logger) {
        self.policy = Mutex(ResetPolicy(errors: errors))
        self.resets = resets
        self.logger = logger
    }

    /// Starts counting the registry's devices' failures.
    func watch(_ registry: DeviceRegistry) {
        registry.watchFailures { [self] device in
            let errors = policy.withLock { $0.errors }
            guard policy.withLock({ $0.failed(device.id, at: .now) }) else { return }
            Task {
                logger.warning(
                    "\(device.id) failed \(errors) times within ten minutes (\(device.error ?? "no reason given")); resetting its USB port"
                )
                _ = try? await resets.reset(device.id)
            }
        }
    }
}
