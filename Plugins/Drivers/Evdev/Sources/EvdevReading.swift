import DeviceNodes
import Glibc
import Logging
import ScanBridgeCore

/// One keyboard-wedge device's keys, read by a `NodeReadLoop`: the node is grabbed so the
/// desktop does not see the keys, the keys are decoded in the device's layout, and every
/// burst that is a scan is handed over as one `barcode` read.
///
/// Confined to its loop's thread once started (hence `@unchecked Sendable`).
final class EvdevReading: NodeReading, @unchecked Sendable {
    let spec: EvdevDeviceSpec
    let id: String
    private let keymap: XKBKeymap
    private let events: AsyncStream<DriverEvent>.Continuation
    let logger: Logger

    // What the keys typed so far mean; kept while a FIFO is opened again for its next writer.
    private var splitter = InputEventSplitter()
    private let decoder: KeyDecoder
    private var assembler: KeystrokeAssembler
    private var resyncing = false
    /// The last key: when it came in, and its time by the kernel's clock.
    private var last: (received: ContinuousClock.Instant, time: Duration)?
    private var identity: EvdevIdentity?

    init(spec: EvdevDeviceSpec, events: AsyncStream<DriverEvent>.Continuation, logger: Logger) throws(EvdevError) {
        self.spec = spec
        self.id = DeviceNode.deviceID(driver: "evdev", path: spec.path)
        self.keymap = try XKBKeymap.named(spec.layout)
        self.decoder = KeyDecoder(keymap: keymap)
        self.assembler = KeystrokeAssembler(settings: spec.timing)
        self.events = events
        var logger = logger
        logger[metadataKey: "device.id"] = "\(id)"
        self.logger = logger
    }

    func open() throws(DeviceNodeError) -> DeviceNode {
        let node = try DeviceNode(path: spec.path)
        identity = node.evdevIdentity
        if identity != nil { node.useMonotonicClock() }
        return node
    }

    func describe(_ node: DeviceNode?) -> Device {
        var device = Device(id: id, driver: "evdev", kind: .barcode, name: spec.path, path: spec.path)
        if node != nil, let identity {
            device.name = identity.name ?? spec.path
            device.vendorId = Self.hex(identity.vendorId)
            device.productId = Self.hex(identity.productId)
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
        for event in splitter.feed(bytes) { apply(event, node: node) }
    }

    var deadline: ContinuousClock.Instant? {
        guard assembler.deadline != nil, let last else { return nil }
        return last.received + spec.timing.idle
    }

    func idle() {
        guard let last else { return }
        handle(assembler.flush(at: last.time + spec.timing.idle))
    }

    func unplugged() {
        handle(assembler.dropped())
        splitter = InputEventSplitter()
        decoder.resync(pressed: [])
        resyncing = false
        last = nil
    }

    private func apply(_ event: InputEvent, node: DeviceNode) {
        if event.type == InputEvent.synchronization {
            if event.code == InputEvent.dropped {
                // Events up to the next SYN_REPORT are unreliable; the modifiers are read back then.
                resyncing = true
                handle(assembler.dropped())
            } else if event.code == InputEvent.report, resyncing {
                resyncing = false
                decoder.resync(pressed: identity == nil ? [] : node.keysDown())
            }
            return
        }
        guard !resyncing, event.type == InputEvent.key, event.code < 256,
              let output = decoder.key(code: event.code, value: event.value) else { return }
        let time = Duration.microseconds(event.microseconds)
        last = (ContinuousClock.now, time)
        switch output {
        case .text(let text): handle(assembler.character(text, at: time))
        case .terminator: handle(assembler.terminator(at: time))
        case .unmapped(let code): handle(assembler.unmappedKey(code, at: time))
        }
    }

    private func handle(_ output: KeystrokeAssembler.Output?) {
        switch output {
        case nil: return
        case .scan(let text, let unmapped)?:
            if !unmapped.isEmpty {
                logger.warning("\(unmapped.count) key(s) with no character in layout '\(spec.layout)' (evdev codes \(unmapped.map(String.init).joined(separator: " "))): is the scanner set to another layout?")
            }
            guard !text.isEmpty else { return }
            events.yield(.read(RawRead(device: id, driver: "evdev", kind: .barcode, text: text)))
        case .humanTyping(let length)?:
            logger.debug("\(length) key(s) typed too slowly for a scanner: not a scan")
        case .tooLong(let length)?:
            logger.warning("dropped a burst of \(length) keys, over the \(spec.timing.maxLength) a scan may have: a key held down, or a keyboard read as a scanner?")
        case .incomplete(let length)?:
            logger.warning("key events were lost (SYN_DROPPED or an unplug): \(length) key(s) of a scan in progress discarded; scan the label again")
        }
    }

    private static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
