import DriverKit
import Glibc
import Logging
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel

/// One keyboard-wedge device's keys, read by a `NodeReadLoop`: the node is grabbed, unless
/// `grab` is off, so the desktop does not see the keys, the keys are decoded in the device's
/// layout, and every burst that is a scan is handed over as one `barcode` read.
///
/// Confined to its loop's thread once started (hence `@unchecked Sendable`).
final class EvdevReading: NodeReading, @unchecked Sendable {
    let spec: EvdevDeviceSpec
    let id: String
    private let events: AsyncStream<DriverEvent>.Continuation
    let logger: Logger

    /// The keys typed so far; kept while a FIFO is opened again for its next writer.
    private let keys: KeyStream
    private var reads: WedgeReads!
    /// When the last bytes came in, for the idle deadline.
    private var lastReceived: ContinuousClock.Instant?
    private var identity: EvdevIdentity?

    /// - Parameter id: the device id; by default, from the path.
    init(spec: EvdevDeviceSpec, id: String? = nil, events: AsyncStream<DriverEvent>.Continuation, logger: Logger)
        throws(KeyboardError)
    {
        self.spec = spec
        self.id = id ?? DeviceNode.deviceID(driver: "evdev", path: spec.path)
        self.keys = try KeyStream(spec.keyboard)
        self.events = events
        var logger = logger
        logger[metadataKey: "device.id"] = "\(self.id)"
        self.logger = logger
        reads = WedgeReads(
            device: self.id, driver: "evdev", layout: spec.keyboard.layout, maxLength: spec.keyboard.timing.maxLength,
            events: events,
            logger: logger
        ) { [unowned self] _ in events.yield(.device(device(identified: true))) }
    }

    func open() throws(DeviceNodeError) -> DeviceNode {
        let node = try DeviceNode(path: spec.path)
        identity = node.evdevIdentity
        if identity != nil { node.useMonotonicClock() }
        return node
    }

    func describe(_ node: DeviceNode?) -> Device {
        device(identified: node != nil)
    }

    /// The device, with the identity its node gave when `identified`.
    private func device(identified: Bool) -> Device {
        var device = Device(id: id, driver: "evdev", kind: .barcode, name: spec.path, path: spec.path, hint: reads.hint)
        if identified, let identity {
            device.name = identity.name ?? spec.path
            device.vendorId = identity.vendorId.usbID
            device.productId = identity.productId.usbID
            device.serial = identity.serial
        }
        return device
    }

    func hold(_ node: DeviceNode) -> NodeHold {
        guard spec.grab, identity != nil, let failure = node.grab() else { return .held }
        if failure == EBUSY { return .busy("another program has grabbed \(spec.path)") }
        logger.warning("cannot grab \(spec.path) (\(String(cString: strerror(failure)))): the desktop sees its keys too")
        return .held
    }

    func received(_ bytes: ArraySlice<UInt8>, from node: DeviceNode) {
        lastReceived = ContinuousClock.now
        let inputDevice = identity != nil
        for decoded in keys.feed(bytes, keysDown: { inputDevice ? node.keysDown() : [] }) { reads.handle(decoded) }
    }

    var deadline: ContinuousClock.Instant? {
        guard keys.isWaiting, let lastReceived else { return nil }
        return lastReceived + spec.keyboard.timing.idle
    }

    func idle() {
        reads.handle(keys.idle())
    }

    func unplugged() {
        reads.handle(keys.reset())
    }
}
