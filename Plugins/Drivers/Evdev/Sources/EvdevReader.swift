import Foundation
import Glibc
import Logging
import ScanBridgeCore

/// One keyboard-wedge device, read on a thread of its own (`read` and `poll` block): opens
/// the node, grabs it, decodes its keys in the device's layout and hands every scan over.
/// An unplug makes the device `gone` and the node is opened again when it comes back, and
/// grabbed again; a FIFO whose writer closed is opened again quietly.
final class EvdevReader: Sendable {
    let spec: EvdevDeviceSpec
    let id: String
    private let keymap: XKBKeymap
    private let events: AsyncStream<DriverEvent>.Continuation
    private let logger: Logger
    let stop = StopSignal()

    init(spec: EvdevDeviceSpec, events: AsyncStream<DriverEvent>.Continuation, logger: Logger) throws(EvdevError) {
        self.spec = spec
        self.id = Self.deviceID(path: spec.path)
        self.keymap = try XKBKeymap.named(spec.layout)
        self.events = events
        var logger = logger
        logger[metadataKey: "device"] = "\(id)"
        self.logger = logger
    }

    /// `evdev:` and the path, every run of other characters than letters, digits, `.`,
    /// `-` and `:` made `_`: a path given with `--device` is the device's stable name
    /// (`/dev/input/by-id/usb-…-event-kbd` survives replugs).
    static func deviceID(path: String) -> String {
        var id = ""
        for scalar in path.unicodeScalars {
            let keep = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || ".-:".unicodeScalars.contains(scalar))
            if keep { id.unicodeScalars.append(scalar) } else if !id.hasSuffix("_") { id += "_" }
        }
        return "evdev:" + (id.hasPrefix("_") ? String(id.dropFirst()) : id)
    }

    private enum Ending {
        case stopped, unplugged, endOfFile
    }

    /// What the keys typed so far mean; kept while a FIFO is opened again for its next writer.
    private struct Keys {
        var splitter = InputEventSplitter()
        let decoder: KeyDecoder
        var assembler: KeystrokeAssembler
        var resyncing = false
        /// The last key: when it came in, and its time by the kernel's clock.
        var last: (received: ContinuousClock.Instant, time: Duration)?
    }

    func run() {
        var lastProblem: String?
        var keys = Keys(decoder: KeyDecoder(keymap: keymap), assembler: KeystrokeAssembler(settings: spec.timing))
        while !stop.isStopped {
            let node: EvdevNode
            do {
                node = try EvdevNode(path: spec.path)
            } catch {
                let sentence = "cannot read \(spec.path): \(error)"
                if sentence != lastProblem {
                    logger.warning("\(sentence); retrying every second")
                    report(.error, error: sentence, node: nil)
                    lastProblem = sentence
                }
                guard stop.sleep(seconds: 1) else { return }
                continue
            }
            guard hold(node) else { return }
            lastProblem = nil
            report(.ready, node: node)
            switch read(node, keys: &keys) {
            case .stopped: return
            case .endOfFile where node.isFIFO: continue
            case .endOfFile:
                // A recording played from a file: all of it was read.
                while stop.sleep(seconds: 3600) {}
                return
            case .unplugged:
                logger.info("unplugged")
                handle(keys.assembler.dropped(), node: node)
                keys = Keys(decoder: KeyDecoder(keymap: keymap), assembler: KeystrokeAssembler(settings: spec.timing))
                events.yield(.gone(deviceID: id))
                guard stop.sleep(seconds: 0.2) else { return }
            }
        }
    }

    /// Grabs the node, waiting as `busy` while another program holds it; false when stopped.
    private func hold(_ node: EvdevNode) -> Bool {
        guard spec.grab else { return true }
        var busy = false
        while let failure = node.grab() {
            guard failure == EBUSY else {
                logger.warning("cannot grab \(spec.path) (\(String(cString: strerror(failure)))): the desktop sees its keys too")
                return true
            }
            if !busy {
                logger.warning("another program holds \(spec.path) exclusively; waiting for it to let go")
                report(.busy, node: node)
                busy = true
            }
            guard stop.sleep(seconds: 1) else { return false }
        }
        return true
    }

    private func read(_ node: EvdevNode, keys: inout Keys) -> Ending {
        var buffer = [UInt8](repeating: 0, count: InputEvent.size * 64)
        var descriptors = [pollfd(fd: node.fd, events: Int16(POLLIN), revents: 0), pollfd(fd: stop.fd, events: Int16(POLLIN), revents: 0)]
        while true {
            var timeout: Int32 = -1
            if keys.assembler.deadline != nil, let last = keys.last {
                let left = spec.timing.idle - (ContinuousClock.now - last.received)
                timeout = max(0, Int32(left / .milliseconds(1)) + 1)
            }
            let ready = poll(&descriptors, 2, timeout)
            if stop.isStopped { return .stopped }
            if ready == 0, let last = keys.last {
                handle(keys.assembler.flush(at: last.time + spec.timing.idle), node: node)
                continue
            }
            guard ready > 0 else { continue }  // EINTR
            let count = buffer.withUnsafeMutableBytes { Glibc.read(node.fd, $0.baseAddress, $0.count) }
            if count == 0 { return .endOfFile }
            if count < 0 {
                let failure = errno
                if failure == EAGAIN || failure == EINTR { continue }
                if failure != ENODEV && failure != EIO {
                    logger.warning("reading \(spec.path) failed: \(String(cString: strerror(failure)))")
                }
                return .unplugged
            }
            for event in keys.splitter.feed(buffer[..<count]) {
                apply(event, to: &keys, node: node)
            }
        }
    }

    private func apply(_ event: InputEvent, to keys: inout Keys, node: EvdevNode) {
        if event.type == InputEvent.synchronization {
            if event.code == InputEvent.dropped {
                // Events up to the next SYN_REPORT are unreliable; the modifiers are read back then.
                keys.resyncing = true
                handle(keys.assembler.dropped(), node: node)
            } else if event.code == InputEvent.report, keys.resyncing {
                keys.resyncing = false
                keys.decoder.resync(pressed: node.keysDown())
            }
            return
        }
        guard !keys.resyncing, event.type == InputEvent.key, event.code < 256,
              let output = keys.decoder.key(code: event.code, value: event.value) else { return }
        let time = Duration.microseconds(event.microseconds)
        keys.last = (ContinuousClock.now, time)
        switch output {
        case .text(let text): handle(keys.assembler.character(text, at: time), node: node)
        case .terminator: handle(keys.assembler.terminator(at: time), node: node)
        case .unmapped(let code): handle(keys.assembler.unmappedKey(code, at: time), node: node)
        }
    }

    private func handle(_ output: KeystrokeAssembler.Output?, node: EvdevNode) {
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
            logger.warning("the kernel dropped key events (SYN_DROPPED): \(length) key(s) of a scan in progress discarded; scan the label again")
        }
    }

    private func report(_ state: Device.State, error: String? = nil, node: EvdevNode?) {
        var device = Device(id: id, driver: "evdev", kind: .barcode, name: spec.path, state: state, error: error, path: spec.path)
        if let node {
            device.name = node.name
            device.vendorId = node.vendorId.map { Self.hex($0) }
            device.productId = node.productId.map { Self.hex($0) }
            device.serial = node.serial
        }
        events.yield(.device(device))
    }

    private static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
