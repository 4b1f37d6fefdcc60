import CHidraw
import DriverKit
import Glibc
import Logging
import ScanBridgeCore
import ScanBridgeModel

/// One HID POS scanner's input reports, read by a `NodeReadLoop` from its hidraw node: the
/// report descriptor says where the data, the AIM identifier and the "more follows" flag
/// are; the reports of one label are joined into one `barcode` read.
///
/// A FIFO standing in for hidraw has no descriptor: its stream is cut into the common
/// 64-byte reports (`HIDPOSReportLayout.common`).
/// Confined to its loop's thread once started (hence `@unchecked Sendable`).
final class HIDPOSReading: NodeReading, @unchecked Sendable {
    let path: String
    let id: String
    let logger: Logger
    private let events: AsyncStream<DriverEvent>.Continuation
    private var layout = HIDPOSReportLayout.common
    /// A real hidraw node returns one report a read; a FIFO's stream is cut at 64 bytes.
    private var isHIDRaw = false
    private var pending: [UInt8] = []
    private var assembler = HIDPOSAssembler()
    private var identity: (vendor: UInt16, product: UInt16)?
    private let start = ContinuousClock.now

    /// A discovered node that is no HID POS scanner is declined quietly; a named one is an error.
    private let discovered: Bool

    /// - Parameter id: the device id of a discovered node; a named one's comes from its path.
    init(path: String, id: String? = nil, events: AsyncStream<DriverEvent>.Continuation, logger: Logger) {
        self.path = path
        self.id = id ?? DeviceNode.deviceID(driver: "hidpos", path: path)
        self.discovered = id != nil
        self.events = events
        var logger = logger
        logger[metadataKey: "device.id"] = "\(self.id)"
        self.logger = logger
    }

    func open() throws(DeviceNodeError) -> DeviceNode {
        let node = try DeviceNode(path: path)
        var descriptor = [UInt8](repeating: 0, count: 4096)
        let size = chidraw_descriptor(node.fd, &descriptor, descriptor.count)
        isHIDRaw = size >= 0
        guard isHIDRaw || !discovered else { throw DeviceNodeError(errno: 0, doing: "\(path) is no hidraw node", declines: true) }
        guard isHIDRaw else {
            logger.info("\(path) is not a hidraw node: reading it as 64-byte HID POS reports")
            layout = .common
            return node
        }
        var bus: UInt32 = 0
        var vendor: UInt16 = 0
        var product: UInt16 = 0
        if chidraw_info(node.fd, &bus, &vendor, &product) >= 0 { identity = (vendor, product) }
        let parsed: HIDReportDescriptor
        do {
            parsed = try HIDReportDescriptor(parsing: Array(descriptor.prefix(Int(size))))
        } catch {
            throw DeviceNodeError(errno: 0, doing: "the report descriptor of \(path) is malformed: \(error)")
        }
        guard let found = HIDPOSReportLayout(descriptor: parsed) else {
            throw DeviceNodeError(
                errno: 0, doing: "\(path) is not a HID POS scanner: its report descriptor has no Decoded Data (usage page 0x8C)",
                declines: discovered)
        }
        layout = found
        return node
    }

    func describe(_ node: DeviceNode?) -> Device {
        var device = Device(id: id, driver: "hidpos", kind: .barcode, name: path, path: path)
        if node != nil, let identity {
            device.vendorId = identity.vendor.usbID
            device.productId = identity.product.usbID
        }
        return device
    }

    func hold(_ node: DeviceNode) -> NodeHold { .held }

    func received(_ bytes: ArraySlice<UInt8>, from node: DeviceNode) {
        if isHIDRaw {
            take(Array(bytes))
            return
        }
        pending += bytes
        while pending.count >= 64 {
            take(Array(pending.prefix(64)))
            pending.removeFirst(64)
        }
    }

    var deadline: ContinuousClock.Instant? {
        assembler.deadline.map { start + $0 }
    }

    func idle() {
        if let output = assembler.flush() { handle(output) }
    }

    func unplugged() {
        pending = []
        idle()
    }

    private func take(_ report: [UInt8]) {
        guard let chunk = layout.chunk(of: report) else {
            logger.debug(
                "skipped a report that is not a scanned-data report (\(report.count) bytes, first byte \(report.first ?? 0))")
            return
        }
        for output in assembler.add(chunk, at: ContinuousClock.now - start) { handle(output) }
    }

    private func handle(_ output: HIDPOSAssembler.Output) {
        switch output {
        case .read(let bytes, let aim):
            let text = String(validating: bytes, as: UTF8.self)
            events.yield(
                .read(
                    RawRead(device: id, driver: "hidpos", kind: .barcode, text: text, bytes: text == nil ? bytes : nil, aim: aim))
            )
        case .tooLong(let length):
            logger.warning("dropped a read of \(length) bytes, over the \(assembler.maxLength) a scan may have")
        case .incomplete(let length):
            logger.warning("a read's last report never came: \(length) byte(s) discarded; scan the label again")
        }
    }
}
