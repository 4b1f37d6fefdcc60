package import Logging
import ScanBridgeCodes
import ScanBridgeModel

/// Runs the drivers: applies their device changes to the registry and sends their reads
/// through the bridge on one lane per device, so each device's reads keep their order and a
/// slow one holds up no other (`ReadLanes`). A driver that stops is restarted with backoff;
/// it never stops the daemon. A read the journal cannot take waits in its lane and is written
/// again until it commits, its device in `error` meanwhile (`ReadSpool`, `ReadTrouble`). When
/// the host is cancelled, the reads already taken from the drivers are still recorded before
/// `run()` returns, unless the journal is failing: those are logged as not recorded.
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
                case .read(let read) where driver.readsWait:
                    await lanes.submitWaitingForRoom(read)
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
        await driver.finish()
        // Reads waiting for a journal that cannot be written are given up, not waited for.
        bridge.spool.stop()
        await lanes.drain()
    }

    private func lanes(feedback: (any DeviceFeedback)?, logger: Logger) -> ReadLanes {
        let trouble = ReadTrouble(registry: bridge.registry)
        return ReadLanes(
            capacity: readsPerDevice, spool: bridge.spool, metrics: bridge.publisher.metrics,
            record: { [bridge] batch in
                await Self.record(batch, bridge: bridge, trouble: trouble, feedback: feedback, logger: logger)
            },
            dropped: { id in
                logger.error(
                    "device reads dropped: they arrive faster than they can be recorded", metadata: ["device.id": "\(id)"])
                trouble.dropping(id, true)
            },
            recovered: { id, dropped in
                logger.warning("device reads recorded again", metadata: ["device.id": "\(id)", "reads.dropped": "\(dropped)"])
                trouble.dropping(id, false)
            })
    }

    /// Records reads of one device through the bridge's one path (`Bridge.record`), in order,
    /// in one commit; each outcome goes back to `feedback` in the order read, when the driver
    /// takes it. While the journal cannot be written the reads wait, and are written again
    /// until they commit.
    private static func record(
        _ batch: [ReadLanes.Taken], bridge: Bridge, trouble: ReadTrouble, feedback: (any DeviceFeedback)?,
        logger: Logger
    ) async {
        guard let device = batch.first?.read.device else { return }
        let (outcomes, waited) = await bridge.record(
            batch.map { ($0.read, $0.at) },
            journaling: .untilStored { error in
                let reason = (error as? JournalWriteFailure)?.reason ?? "\(error)"
                logger.error(
                    "device reads are waiting: the journal cannot be written",
                    metadata: ["device.id": "\(device)", "reason": "\(reason)", "error": "\(error)"])
                trouble.waiting(device, reason: reason)
            })
        if waited, outcomes.contains(where: { (try? $0.get()) != nil }) {
            logger.notice("device reads journaled again", metadata: ["device.id": "\(device)"])
            trouble.waiting(device, reason: nil)
        }
        for (taken, outcome) in zip(batch, outcomes) {
            switch outcome {
            case .success(let recorded):
                feedback?.resolved(deviceID: taken.read.device, resolution: recorded.resolution)
            case .failure(let error):
                notRecorded(taken.read, error: error, feedback: feedback, logger: logger)
            }
        }
    }

    private static func notRecorded(_ read: RawRead, error: any Error, feedback: (any DeviceFeedback)?, logger: Logger) {
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
