import Logging
import ScanBridgeCodes
import ScanBridgeModel

/// Runs the drivers: applies their device changes to the registry and sends their reads
/// through the bridge on one lane per device, so each device's reads keep their order and a
/// slow one holds up no other (`ReadLanes`). A driver that stops is restarted with backoff;
/// it never stops the daemon. When the host is cancelled, the reads already taken from the
/// drivers are still recorded before `run()` returns.
package struct DriverHost: Sendable {
    package let drivers: [any DeviceDriver]
    let bridge: Bridge
    let logger: Logger
    /// The first wait before restarting a stopped driver; it doubles up to 10 s.
    let restartDelay: Duration
    /// Reads of one device that may wait to be recorded; past it the newest are dropped and reported.
    let readsPerDevice: Int

    package init(
        drivers: [any DeviceDriver], bridge: Bridge, logger: Logger, restartDelay: Duration = .milliseconds(500),
        readsPerDevice: Int = 1024
    ) {
        self.drivers = drivers
        self.bridge = bridge
        self.logger = logger
        self.restartDelay = restartDelay
        self.readsPerDevice = readsPerDevice
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
        let lanes = lanes(feedback: driver as? any DeviceFeedback, logger: logger)
        var delay = restartDelay
        while !Task.isCancelled {
            let started = ContinuousClock.now
            for await event in driver.events() {
                switch event {
                case .device(let device):
                    bridge.registry.update(device)
                case .gone(let id):
                    bridge.registry.markGone(id)
                    lanes.close(id)
                case .barrier(let done):
                    done()
                case .read(let read):
                    lanes.submit(read)
                }
            }
            guard !Task.isCancelled else { break }
            // A driver that ran a good while before stopping starts its backoff over.
            if ContinuousClock.now - started > .seconds(30) { delay = restartDelay }
            logger.warning("driver stopped; restarting", metadata: ["retry.in": "\(delay)"])
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(10))
        }
        await lanes.drain()
    }

    private func lanes(feedback: (any DeviceFeedback)?, logger: Logger) -> ReadLanes {
        let registry = bridge.registry
        let busy = "reads arrive faster than they can be recorded; the newest are dropped"
        return ReadLanes(
            capacity: readsPerDevice,
            record: { [bridge] read in await Self.record(read, bridge: bridge, feedback: feedback, logger: logger) },
            dropped: { id in
                logger.error(
                    "device reads dropped: they arrive faster than they can be recorded", metadata: ["device.id": "\(id)"])
                guard var device = registry.device(id), device.state == .ready else { return }
                device.state = .error
                device.error = busy
                registry.update(device)
            },
            recovered: { id, dropped in
                logger.warning("device reads recorded again", metadata: ["device.id": "\(id)", "reads.dropped": "\(dropped)"])
                guard var device = registry.device(id), device.state == .error, device.error == busy else { return }
                device.state = .ready
                device.error = nil
                registry.update(device)
            })
    }

    /// Records one read; its outcome goes back to `feedback`, when the driver takes it.
    private static func record(_ read: RawRead, bridge: Bridge, feedback: (any DeviceFeedback)?, logger: Logger) async {
        do {
            let resolution = try await bridge.ingestResolving(read).resolution
            feedback?.resolved(deviceID: read.device, resolution: resolution)
        } catch {
            feedback?.resolved(deviceID: read.device, resolution: .error(handler: "scanbridge", message: "not recorded"))
            // A read the journal could not take is never silently lost: the error says a read
            // was lost and why; what it read (a scan's text, a card's UID) is a customer's
            // data, so it goes to the debug log only, for whoever turns it on.
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
