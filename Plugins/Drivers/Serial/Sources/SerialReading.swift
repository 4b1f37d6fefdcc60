import DriverKit
import Glibc
import Logging
import ScanBridgeCore
import ScanBridgeModel

/// One serial scanner's bytes, read by a `NodeReadLoop`: the tty is put in raw mode (no
/// echo, no line editing, no CR/LF translation), and the stream is cut into reads by the
/// scanner's suffix or a pause. Each read becomes one `barcode` read: its text when it is
/// UTF-8, else its bytes.
///
/// Confined to its loop's thread once started (hence `@unchecked Sendable`).
final class SerialReading: NodeReading, @unchecked Sendable {
    let spec: SerialDeviceSpec
    let id: String
    let logger: Logger
    private let events: AsyncStream<DriverEvent>.Continuation
    private var framer: ByteFramer
    private var lastByte: ContinuousClock.Instant?
    private let start = ContinuousClock.now

    /// - Parameter id: the device id of a discovered node; a named one's comes from its path.
    init(spec: SerialDeviceSpec, id: String? = nil, events: AsyncStream<DriverEvent>.Continuation, logger: Logger) {
        self.spec = spec
        self.id = id ?? DeviceNode.deviceID(driver: "serial", path: spec.path)
        self.framer = ByteFramer(settings: spec.framing)
        self.events = events
        var logger = logger
        logger[metadataKey: "device.id"] = "\(self.id)"
        self.logger = logger
    }

    func open() throws(DeviceNodeError) -> DeviceNode {
        // Read and write (a tty opened read-only cannot take termios settings on some
        // drivers), and never as this process's controlling terminal.
        let node = try DeviceNode(path: spec.path, flags: O_RDWR | O_NOCTTY)
        if isatty(node.fd) == 1 {
            var settings = termios()
            guard tcgetattr(node.fd, &settings) == 0 else {
                throw DeviceNodeError(errno: errno, doing: "cannot read the settings of \(spec.path)")
            }
            cfmakeraw(&settings)
            cfsetispeed(&settings, spec.baud)
            cfsetospeed(&settings, spec.baud)
            settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
            guard tcsetattr(node.fd, TCSANOW, &settings) == 0 else {
                throw DeviceNodeError(errno: errno, doing: "cannot set \(spec.path) to raw mode")
            }
        }
        return node
    }

    func describe(_ node: DeviceNode?) -> Device {
        Device(id: id, driver: "serial", kind: .barcode, name: spec.path, path: spec.path)
    }

    func hold(_ node: DeviceNode) -> NodeHold { .held }

    func received(_ bytes: ArraySlice<UInt8>, from node: DeviceNode) {
        lastByte = ContinuousClock.now
        for output in framer.feed(bytes, at: lastByte! - start) { handle(output) }
    }

    var deadline: ContinuousClock.Instant? {
        framer.deadline.map { start + $0 }
    }

    func idle() {
        if let output = framer.flush() { handle(output) }
    }

    func unplugged() {
        if case .read(let bytes)? = framer.flush() {
            logger.warning("unplugged in the middle of a read: \(bytes.count) byte(s) discarded; scan the label again")
        }
    }

    private func handle(_ output: ByteFramer.Output) {
        framer.deliver(output, device: id, driver: "serial", events: events, logger: logger)
    }
}
