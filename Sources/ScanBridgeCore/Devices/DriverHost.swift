import Logging
import ScanBridgeCodes
import ScanBridgeModel

/// Runs the drivers: applies their device changes to the registry and sends their reads
/// through the bridge, one read at a time per driver so each device's reads keep their order.
/// A driver that stops is restarted with backoff; it never stops the daemon.
package struct DriverHost: Sendable {
    package let drivers: [any DeviceDriver]
    let bridge: Bridge
    let logger: Logger
    /// The first wait before restarting a stopped driver; it doubles up to 10 s.
    let restartDelay: Duration

    package init(
        drivers: [any DeviceDriver], bridge: Bridge, logger: Logger, restartDelay: Duration = .milliseconds(500)
    ) {
        self.drivers = drivers
        self.bridge = bridge
        self.logger = logger
        self.restartDelay = restartDelay
    }

    /// Runs until cancelled.
    package func run() async {
        await withDiscardingTaskGroup { group in
            for driver in drivers {
                group.addTask { await supervise(driver) }
            }
        }
    }

    private func supervise(_ driver: any DeviceDriver) async {
        var logger = self.logger
        logger[metadataKey: "driver"] = "\(driver.name)"
        var delay = restartDelay
        while !Task.isCancelled {
            let started = ContinuousClock.now
            for await event in driver.events() {
                await handle(event, from: driver as? any DeviceFeedback, logger: logger)
            }
            guard !Task.isCancelled else { return }
            // A driver that ran a good while before stopping starts its backoff over.
            if ContinuousClock.now - started > .seconds(30) { delay = restartDelay }
            logger.warning("driver stopped; restarting", metadata: ["retry.in": "\(delay)"])
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(10))
        }
    }

    /// Applies one driver event; a read's outcome goes back to `feedback`, when the driver takes it.
    private func handle(_ event: DriverEvent, from feedback: (any DeviceFeedback)?, logger: Logger) async {
        switch event {
        case .device(let device):
            bridge.registry.update(device)
        case .gone(let id):
            bridge.registry.markGone(id)
        case .barrier(let done):
            done()
        case .read(let read):
            do {
                let resolution = try await bridge.ingestResolving(read).resolution
                feedback?.resolved(deviceID: read.device, resolution: resolution)
            } catch {
                feedback?.resolved(deviceID: read.device, resolution: .error(handler: "scanbridge", message: "not recorded"))
                // A read the journal could not take is never silently lost: the error says a
                // read was lost and why; what it read (a scan's text, a card's UID) is a
                // customer's data, so it goes to the debug log only, for whoever turns it on.
                logger.error("read not recorded", metadata: ["device.id": "\(read.device)", "error": "\(error)"])
                logger.debug(
                    "the read not recorded",
                    metadata: [
                        "device.id": "\(read.device)", "read.text": "\(read.text ?? "")",
                        "read.uid": "\(read.uid.map { Hex.encode($0) } ?? "")",
                    ])
            }
        }
    }
}
