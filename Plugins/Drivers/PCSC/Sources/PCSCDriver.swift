import Foundation
package import Logging
import PCSCKit
package import ScanBridgeCore
package import ScanBridgeModel
import Synchronization

/// Contactless card readers through pcscd (libpcsclite): readers come and go with pcscd's
/// hotplug, every tap of a card becomes one read with its UID, card type and NDEF records.
///
/// PC/SC calls block: one thread of the driver's own watches readers (`SCardCancel` ends it),
/// and each reader's cards are read on a thread of that reader's own (`PCSCCardWorker`).
package final class PCSCDriver: DeviceDriver, DeviceFeedback {
    package let name = "pcsc"
    private let settings: PCSCSettings
    private let logger: Logger
    /// The beep/LED thread of the running `events()` stream; nil when feedback is off.
    private let feedback = Mutex<PCSCFeedbackWorker?>(nil)

    package init(settings: PCSCSettings = PCSCSettings(), logger: Logger = Logger(label: "scanbridge.driver.pcsc")) {
        self.settings = settings
        self.logger = logger
    }

    package func events() -> AsyncStream<DriverEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DriverEvent.self)
        let control = PCSCControl()
        let monitor = PCSCMonitor(settings: settings, control: control, events: continuation, logger: logger)
        let thread = Thread { monitor.run() }
        thread.name = "scanbridge-pcsc"
        thread.start()
        let worker = settings.feedback.enabled ? PCSCFeedbackWorker(settings: settings.feedback, logger: logger) : nil
        feedback.withLock {
            $0?.stop()
            $0 = worker
        }
        continuation.onTermination = { _ in
            control.stop()
            worker?.stop()
        }
        return stream
    }

    /// Beep and LED for the read's resolution, on readers that take them (PCSCFeedbackSettings).
    package func resolved(deviceID: String, resolution: Resolution) {
        feedback.withLock { $0 }?.signal(FeedbackVerdict(resolution), deviceID: deviceID)
    }
}

/// Timings of the PC/SC driver.
package struct PCSCSettings: Sendable {
    /// Longest wait in `SCardGetStatusChange` before the readers are listed again: pcsc-lite
    /// 1.9.9 can miss a reader removed and another added between two wake-ups.
    package var relistMilliseconds: UInt32
    /// First and longest wait before a new context after pcscd went away (doubling in between).
    package var firstBackoff: Double
    package var longestBackoff: Double
    /// Beep and LED after each tap's resolution; off by default.
    package var feedback: PCSCFeedbackSettings

    package init(
        relistMilliseconds: UInt32 = 2000, firstBackoff: Double = 0.5, longestBackoff: Double = 10,
        feedback: PCSCFeedbackSettings = PCSCFeedbackSettings()
    ) {
        self.relistMilliseconds = relistMilliseconds
        self.firstBackoff = firstBackoff
        self.longestBackoff = longestBackoff
        self.feedback = feedback
    }
}
