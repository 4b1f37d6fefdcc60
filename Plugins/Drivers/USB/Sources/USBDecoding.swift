import DriverKit
import Logging
import ScanBridgeCore
import ScanBridgeModel

/// What a device's packets are: bytes cut into reads by the serial driver's rules, or, from a
/// HID boot keyboard, key reports decoded as a wedge scanner's keys in the device's layout.
/// Confined to the device's thread.
final class USBDecoding {
    /// A keyboard's decoding: its reports as key events, the keys as scans.
    private struct Keys {
        let stream: KeyStream
        var reports = BootKeyboardReports()
        let reads: WedgeReads
    }

    /// One of the two, by what the interface is.
    private var framer: ByteFramer?
    private var keys: Keys?
    private let id: String
    private let spec: USBDeviceSpec
    private let events: AsyncStream<DriverEvent>.Continuation
    private let logger: Logger
    private let start = ContinuousClock.now
    private var lastReceived: ContinuousClock.Instant?

    /// - Parameter hintChanged: reports the device again, with the hint a keyboard's reads
    ///   give about its layout (`WedgeReads.hint`).
    init(
        spec: USBDeviceSpec, keyboard: Bool, id: String, events: AsyncStream<DriverEvent>.Continuation, logger: Logger,
        hintChanged: @escaping (String?) -> Void
    ) throws(KeyboardError) {
        self.id = id
        self.spec = spec
        self.events = events
        self.logger = logger
        guard keyboard else {
            framer = ByteFramer(settings: spec.framing)
            return
        }
        let stream = try KeyStream(spec.keyboard)
        let reads = WedgeReads(
            device: id, driver: USBDriver.driverName, layout: spec.keyboard.layout, maxLength: stream.maxLength,
            events: events, logger: logger, hintChanged: hintChanged)
        keys = Keys(stream: stream, reads: reads)
    }

    /// The hint the keyboard's reads give about its layout; nil for bytes.
    var hint: String? { keys?.reads.hint }

    /// One packet from the endpoint.
    func received(_ packet: ArraySlice<UInt8>) {
        lastReceived = .now
        if keys != nil {
            let records = keys!.reports.events(packet, microseconds: Self.microseconds(ContinuousClock.now - start))
            for decoded in keys!.stream.feed(records) { keys!.reads.handle(decoded) }
        } else if framer != nil {
            let data = Self.data(of: packet, header: spec.packetHeader)
            guard !data.isEmpty else { return }
            for output in framer!.feed(data, at: ContinuousClock.now - start) { emit(output) }
        }
    }

    /// What a packet carries past its `packet_header`: an FTDI chip starts every packet, data
    /// or none, with two status bytes; a packet no longer than its header carries nothing.
    /// Apart, so that FuzzUSB cuts packets as the driver does.
    static func data(of packet: ArraySlice<UInt8>, header: Int) -> ArraySlice<UInt8> {
        packet.dropFirst(header)
    }

    /// When `idle()` is due, if nothing arrives before.
    var deadline: ContinuousClock.Instant? {
        if let keys { return keys.stream.isWaiting ? lastReceived.map { $0 + keys.stream.idleTime } : nil }
        return framer?.deadline.map { start + $0 }
    }

    func idle() {
        if let keys { return keys.reads.handle(keys.stream.idle()) }
        framer?.flush().map(emit)
    }

    /// The device went away in the middle of whatever was being read.
    func unplugged() {
        if let keys {
            keys.reads.handle(keys.stream.reset())
            self.keys?.reports = BootKeyboardReports()
        } else if case .read(let bytes)? = framer?.flush() {
            logger.warning("unplugged in the middle of a read: \(bytes.count) byte(s) discarded; scan the label again")
        }
    }

    private func emit(_ output: ByteFramer.Output) {
        framer?.deliver(output, device: id, driver: USBDriver.driverName, events: events, logger: logger)
    }

    private static func microseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
    }
}
