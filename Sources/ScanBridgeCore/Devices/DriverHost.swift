import Logging

/// Runs the drivers: applies their device changes to the registry and sends their reads
/// through the bridge, one read at a time per driver so each device's reads keep their order.
/// A driver that stops is restarted with backoff; it never stops the daemon.
public struct DriverHost: Sendable {
    public let drivers: [any DeviceDriver]
    let bridge: Bridge
    let logger: Logger

    public init(drivers: [any DeviceDriver], bridge: Bridge, logger: Logger) {
        self.drivers = drivers
        self.bridge = bridge
        self.logger = logger
    }

    /// Runs until cancelled.
    public func run() async {
        await withDiscardingTaskGroup { group in
            for driver in drivers {
                group.addTask { await supervise(driver) }
            }
        }
    }

    private func supervise(_ driver: any DeviceDriver) async {
        var logger = self.logger
        logger[metadataKey: "driver"] = "\(driver.name)"
        var delay: Duration = .milliseconds(500)
        while !Task.isCancelled {
            let started = ContinuousClock.now
            for await event in driver.events() {
                await handle(event, logger: logger)
            }
            guard !Task.isCancelled else { return }
            if ContinuousClock.now - started > .seconds(30) { delay = .milliseconds(500) }
            logger.warning("driver stopped; restarting", metadata: ["retry.in": "\(delay)"])
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(10))
        }
    }

    private func handle(_ event: DriverEvent, logger: Logger) async {
        switch event {
        case .device(let device):
            bridge.registry.update(device)
        case .gone(let id):
            bridge.registry.markGone(id)
        case .barrier(let done):
            done()
        case .read(let read):
            do {
                _ = try await bridge.ingest(read)
            } catch {
                // Logged in full so that a read the journal could not take is never silently lost.
                logger.error("read not recorded", metadata: [
                    "device.id": "\(read.device)", "read.text": "\(read.text ?? "")",
                    "read.uid": "\(read.uid.map { $0.map { String($0, radix: 16) }.joined() } ?? "")",
                    "error": "\(error)",
                ])
            }
        }
    }
}
