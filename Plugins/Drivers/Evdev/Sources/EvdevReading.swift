import DriverKit
import Glibc
import Logging
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel

/// One keyboard-wedge device's keys, read by a `NodeReadLoop`: the node is grabbed so the
/// desktop does not see the keys, the keys are decoded in the device's layout, and every
/// burst that is a scan is handed over as one `barcode` read.
///
/// Confined to its loop's thread once started (hence `@unchecked Sendable`).
final class EvdevReading: NodeReading, @unchecked Sendable {
    let spec: EvdevDeviceSpec
    let id: String
    private let events: AsyncStream<DriverEvent>.Continuation
    let logger: Logger

    /// The keys typed so far; kept while a FIFO is opened again for its next writer.
    private let keys: KeyStream
    /// When the last bytes came in, for the idle deadline.
    private var lastReceived: ContinuousClock.Instant?
    private var identity: EvdevIdentity?
    /// What the operator should change, when the reads look like another layout's (`LayoutCheck`).
    private var hint: String?

    /// - Parameter id: the device id; by default, from the path.
    init(spec: EvdevDeviceSpec, id: String? = nil, events: AsyncStream<DriverEvent>.Continuation, logger: Logger)
        throws(EvdevError)
    {
        self.spec = spec
        self.id = id ?? DeviceNode.deviceID(driver: "evdev", path: spec.path)
        self.keys = try KeyStream(layout: spec.layout, settings: spec.timing)
        self.events = events
        var logger = logger
        logger[metadataKey: "device.id"] = "\(self.id)"
        self.logger = logger
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
        var device = Device(id: id, driver: "evdev", kind: .barcode, name: spec.path, path: spec.path, hint: hint)
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
        for decoded in keys.feed(bytes, keysDown: { inputDevice ? node.keysDown() : [] }) { handle(decoded) }
    }

    var deadline: ContinuousClock.Instant? {
        guard keys.isWaiting, let lastReceived else { return nil }
        return lastReceived + spec.timing.idle
    }

    func idle() {
        handle(keys.idle())
    }

    func unplugged() {
        handle(keys.reset())
    }

    private func handle(_ decoded: KeyStream.Decoded?) {
        guard let decoded else { return }
        switch decoded.output {
        case .scan(let text, let unmapped):
            if !unmapped.isEmpty {
                // Which keys they were is part of what was scanned: debug only.
                logger.warning(
                    "\(unmapped.count) key(s) with no character in layout '\(spec.layout)': is the scanner set to another layout?"
                )
                logger.debug("the keys with no character: evdev codes \(unmapped.map(String.init).joined(separator: " "))")
            }
            note(decoded.betterLayout, text: text)
            guard !text.isEmpty else { return }
            events.yield(.read(RawRead(device: id, driver: "evdev", kind: .barcode, text: text)))
        case .humanTyping(let length):
            logger.debug("\(length) key(s) typed too slowly for a scanner: not a scan")
        case .tooLong(let length):
            logger.warning(
                "dropped a burst of \(length) keys, over the \(spec.timing.maxLength) a scan may have: a key held down, or a keyboard read as a scanner?"
            )
        case .incomplete(let length):
            logger.warning(
                "key events were lost (SYN_DROPPED or an unplug): \(length) key(s) of a scan in progress discarded; scan the label again"
            )
        }
    }

    /// Keeps (or clears) the hint that the scanner is set to another layout, and reports the
    /// device again when it changes, so `devices.list` and `scanbridge doctor` show it. The
    /// read itself goes out as the declared layout decoded it: never silently altered.
    private func note(_ guess: LayoutGuess?, text: String) {
        var hint = self.hint
        if let guess {
            // The warning names the layouts only: the read itself is a customer's data, and
            // goes to the debug log for whoever turns it on.
            logger.warning(
                "a read looks wrong in layout '\(spec.layout)' and right in layout '\(guess.layout)': is the scanner set to \(guess.layout)? Then set layout=\(guess.layout)"
            )
            logger.debug(
                "read \(text.debugDescription) in layout '\(spec.layout)' is \(guess.text.debugDescription) in '\(guess.layout)'")
            hint = "reads look like layout \(guess.layout), not \(spec.layout): set layout=\(guess.layout)"
        } else if GTIN.gtin14(text) != nil {
            hint = nil  // a valid GTIN in the declared layout: the layout is right after all
        }
        guard hint != self.hint else { return }
        self.hint = hint
        events.yield(.device(device(identified: true)))
    }
}
