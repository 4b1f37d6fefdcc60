import FuzzSupport
import Logging
import ScanBridgeCore

@testable import DriverKit
@testable import USBDriver

/// What the usb driver reads from an endpoint, one transfer a packet of 1 to 64 bytes, the
/// first byte choosing the interface. A HID boot keyboard: its reports made key events
/// (`BootKeyboardReports`), decoded in a layout (`KeyStream`), the scans handed on
/// (`WedgeReads`). A vendor-mode scanner: each packet without its `packet_header` (an FTDI
/// chip's two status bytes), framed as the serial driver frames bytes. Any packets give
/// reads and drops, never a crash, and no read over its limit.
enum FuzzUSB: FuzzTarget {
    /// The layouts a wedge scanner is most often set to: they decode the same keys differently.
    private static let layouts = ["us", "de", "fr", "gb"]
    /// What the driver logs goes nowhere: the target is its decoding.
    private static let logger = Logger(label: "fuzz") { _ in SwiftLogNoOpLogHandler() }

    static func test(_ bytes: UnsafeBufferPointer<UInt8>) {
        var input = FuzzInput(bytes)
        let choice = input.byte()
        // What the reads become goes nowhere either: each is checked before it is handed on.
        let (_, events) = AsyncStream<DriverEvent>.makeStream(bufferingPolicy: .bufferingNewest(0))
        if choice % 2 == 0 {
            keyboard(&input, layout: layouts[Int(choice / 2) % layouts.count], events: events)
        } else {
            vendor(&input, events: events)
        }
    }

    private static func keyboard(
        _ input: inout FuzzInput, layout: String, events: AsyncStream<DriverEvent>.Continuation
    ) {
        var settings = KeystrokeAssembler.Settings()
        settings.maxLength = Int(input.byte()) + 1
        settings.minUnterminatedLength = Int(input.byte() % 8)
        guard let stream = try? KeyStream(layout: layout, settings: settings) else {
            return fuzzCheck(false, "no keymap for layout \(layout)")
        }
        var reports = BootKeyboardReports()
        let reads = WedgeReads(
            device: "usb-fuzz", driver: USBDriver.driverName, layout: layout, maxLength: stream.maxLength, events: events,
            logger: logger, hintChanged: { _ in })
        func handle(_ decoded: KeyStream.Decoded?) {
            if case .scan(let text, _)? = decoded?.output {
                fuzzCheck(text.count <= settings.maxLength, "a scan of \(text.count) characters, over \(settings.maxLength)")
            }
            reads.handle(decoded)
        }
        var time = Duration.zero
        for packet in input.chunks() {
            // The first byte of each packet also says how long the keyboard was quiet before it.
            let gap = Duration.milliseconds(Int(packet.first ?? 0))
            if stream.isWaiting, gap >= stream.idleTime { handle(stream.idle()) }
            time += gap
            let records = reports.events(packet, microseconds: Int64(time / .microseconds(1)))
            // At most every modifier, six keys up and six down, then SYN_REPORT.
            fuzzCheck(
                records.count % InputEvent.size == 0 && records.count <= 21 * InputEvent.size,
                "a report made \(records.count) bytes of key events")
            for decoded in stream.feed(records) { handle(decoded) }
        }
        handle(stream.idle())
        handle(stream.reset())
    }

    private static func vendor(_ input: inout FuzzInput, events: AsyncStream<DriverEvent>.Continuation) {
        let header = Int(input.byte()) % 65
        // The framer's own settings are FuzzSerial's to vary: here only its limit, so that
        // what is checked is the packets' headers kept out of the reads.
        var settings = ByteFramer.Settings()
        settings.maxLength = Int(input.byte()) + 1
        var framer = ByteFramer(settings: settings)
        var time = Duration.zero
        var carried = 0
        var read = 0
        func deliver(_ output: ByteFramer.Output) {
            if case .read(let bytes) = output {
                fuzzCheck(bytes.count <= settings.maxLength, "a read of \(bytes.count) bytes, over \(settings.maxLength)")
                read += bytes.count
            }
            framer.deliver(output, device: "usb-fuzz", driver: USBDriver.driverName, events: events, logger: logger)
        }
        for packet in input.chunks() {
            time += .milliseconds(Int(packet.first ?? 0))
            if let deadline = framer.deadline, deadline < time, let output = framer.flush() { deliver(output) }
            let data = USBDecoding.data(of: packet[...], header: header)
            fuzzCheck(data.count == max(0, packet.count - header), "\(data.count) data bytes from a packet of \(packet.count)")
            guard !data.isEmpty else { continue }
            carried += data.count
            for output in framer.feed(data, at: time) { deliver(output) }
        }
        if let output = framer.flush() { deliver(output) }
        // Reads are cut from the data, never from a header: the status bytes never reach a scan.
        fuzzCheck(read <= carried, "\(read) bytes read from \(carried) bytes of data")
    }
}
