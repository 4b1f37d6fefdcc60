import CLibUSB
import DriverKit
import Glibc
import Logging
import ScanBridgeCore
import ScanBridgeModel

/// Why a device's session with libusb ended or could not start.
enum USBFailure: Error, Equatable {
    /// The device, or the kernel, refused; tried again every second.
    case failed(String)
    /// A kernel driver or another program has the interface; asked again every second.
    case busy(String)
}

/// One USB device's interface, read through libusb on a thread of its own: the device node
/// discovery reported is opened and handed to libusb (`libusb_wrap_sys_device`), the
/// interface claimed (taken from its kernel driver first only with `detach=on`, and given
/// back after), and its IN endpoint read with asynchronous transfers. The thread sleeps in
/// `poll` on libusb's descriptors and the stop pipe: nothing is polled on a timer. What the
/// packets are is `USBDecoding`'s: bytes framed as a serial scanner's, or a boot keyboard's keys.
///
/// Confined to its thread once started (hence `@unchecked Sendable`).
final class USBReadLoop: DeviceLoop, @unchecked Sendable {
    let stop = StopSignal()
    private let spec: USBDeviceSpec
    private let node: DiscoveredNode
    private let id: String
    private let events: AsyncStream<DriverEvent>.Continuation
    private let logger: Logger
    private let running: RunningLoops
    /// What the operator should change, when a keyboard's reads look like another layout's.
    private var hint: String?

    init(
        spec: USBDeviceSpec, node: DiscoveredNode, id: String, running: RunningLoops,
        events: AsyncStream<DriverEvent>.Continuation, logger: Logger
    ) {
        self.spec = spec
        self.running = running
        running.began()
        self.node = node
        self.id = id
        self.events = events
        var logger = logger
        logger[metadataKey: "device.id"] = "\(id)"
        self.logger = logger
    }

    func run() {
        defer { running.ended() }
        if let failure = stop.failure {
            logger.error("\(failure): not read")
            report(.error, failure)
            return
        }
        var lastProblem: USBFailure?
        while !stop.isStopped {
            switch session() {
            case .success:
                // Unplugged: discovery reports the device gone and ends this loop. A device
                // still there after a while came back at once (a reset): open it again.
                guard stop.sleep(seconds: 2) else { return }
                lastProblem = nil
            case .failure(let problem):
                guard !stop.isStopped else { return }
                if problem != lastProblem {
                    switch problem {
                    case .failed(let sentence):
                        logger.warning("\(sentence); trying again every second")
                        report(.error, sentence)
                    case .busy(let sentence):
                        logger.warning("\(sentence); asking again every second")
                        report(.busy, sentence)
                    }
                    lastProblem = problem
                }
                guard stop.sleep(seconds: 1) else { return }
            }
        }
    }

    /// Opens, claims and reads the device until it is unplugged (success) or stopped (success
    /// too: the loop then ends); what kept it from being read otherwise.
    private func session() -> Result<Void, USBFailure> {
        let fd = open(node.devnode, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.failed("cannot open \(node.devnode): \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        _ = USBLibrary.ready
        var made: OpaquePointer?
        let started = libusb_init(&made)
        guard started == 0, let context = made else { return .failure(.failed("libusb cannot start: \(usbErrorText(started))")) }
        defer { libusb_exit(context) }
        var opened: OpaquePointer?
        let wrapped = libusb_wrap_sys_device(context, Int(fd), &opened)
        guard wrapped == 0, let handle = opened else {
            return .failure(.failed("libusb cannot use \(node.devnode): \(usbErrorText(wrapped))"))
        }
        defer { libusb_close(handle) }
        // The node is the device discovery reported, unless it went and another took its
        // address before this loop heard of it.
        var descriptor = libusb_device_descriptor()
        if libusb_get_device_descriptor(libusb_get_device(handle), &descriptor) == 0,
            descriptor.idVendor != spec.vendorId || descriptor.idProduct != spec.productId
        {
            return .failure(
                .failed("\(node.devnode) is another device now (\(descriptor.idVendor.usbID):\(descriptor.idProduct.usbID))"))
        }
        return USBEndpoint.find(handle, for: spec).flatMap { endpoint in
            claimed(handle) { read(context: context, handle: handle, endpoint: endpoint) }
        }
    }

    /// Runs `body` with the interface claimed: taken from its kernel driver first only with
    /// `detach=on`, and released (and given back) after.
    private func claimed(_ handle: OpaquePointer, _ body: () -> Result<Void, USBFailure>) -> Result<Void, USBFailure> {
        let interface = Int32(spec.interface)
        var detached = false
        if libusb_kernel_driver_active(handle, interface) == 1 {
            let holder = USBInterface.of(port: node.sysname).first { $0.number == spec.interface }?.driver ?? "a driver"
            guard spec.detach else {
                return .failure(
                    .busy(
                        "the kernel's \(holder) has interface \(spec.interface): add detach=on to take it, or read the device through the driver for its mode"
                    ))
            }
            let result = libusb_detach_kernel_driver(handle, interface)
            guard result == 0 else {
                return .failure(.failed("cannot take interface \(spec.interface) from \(holder): \(usbErrorText(result))"))
            }
            logger.info("interface \(spec.interface) taken from the kernel's \(holder); it gets it back on release")
            detached = true
        }
        defer { if detached { _ = libusb_attach_kernel_driver(handle, interface) } }
        let claimed = libusb_claim_interface(handle, interface)
        guard claimed == 0 else {
            if claimed == LIBUSB_ERROR_BUSY.rawValue {
                return .failure(.busy("another program has claimed interface \(spec.interface)"))
            }
            return .failure(.failed("cannot claim interface \(spec.interface): \(usbErrorText(claimed))"))
        }
        defer { _ = libusb_release_interface(handle, interface) }
        return body()
    }

    /// Reads until unplugged or stopped, the transfers all called back before it returns.
    private func read(context: OpaquePointer, handle: OpaquePointer, endpoint: USBEndpoint) -> Result<Void, USBFailure> {
        let decoding: USBDecoding
        do {
            decoding = try USBDecoding(
                spec: spec, keyboard: endpoint.isBootKeyboard, id: id, events: events, logger: logger
            ) { [unowned self] hint in
                self.hint = hint
                report(.ready, nil)
            }
        } catch {
            return .failure(.failed("\(error)"))
        }
        if endpoint.isBootKeyboard { Self.reportOnChangeOnly(handle, interface: spec.interface) }
        let ring = TransferRing(handle: handle, endpoint: endpoint)
        defer { ring.cancelAll(context: context) }
        let submitted = ring.submitAll()
        guard submitted == 0 else {
            return .failure(.failed("cannot read endpoint \(endpoint.name): \(usbErrorText(submitted))"))
        }
        report(.ready, nil)
        let keyboard = endpoint.isBootKeyboard ? ", a boot keyboard's keys in layout \(spec.keyboard.layout)" : ""
        logger.info("reading interface \(spec.interface), endpoint \(endpoint.name)\(keyboard)")
        var descriptors = [pollfd(fd: stop.fd, events: Int16(POLLIN), revents: 0)] + Self.pollDescriptors(context)
        // Failures and stalls in a row, and packets with nothing in them: a device that keeps
        // failing is given up and opened again, one that sends empty packets without end is
        // read at most a hundred times a second, so no device can make this thread spin.
        var failures = 0
        var empty = 0
        while true {
            var timeout: Int32 = -1
            if let deadline = decoding.deadline {
                timeout = max(0, Int32((deadline - ContinuousClock.now) / .milliseconds(1)) + 1)
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if stop.isStopped { return .success(()) }
            if ready < 0, errno != EINTR { return .failure(.failed("poll failed: \(String(cString: strerror(errno)))")) }
            var now = timeval(tv_sec: 0, tv_usec: 0)
            _ = libusb_handle_events_timeout_completed(context, &now, nil)
            for completion in ring.takeCompletions() {
                switch completion {
                case .data(let packet) where packet.isEmpty:
                    empty += 1
                    if empty > 100 { guard stop.sleep(seconds: 0.01) else { return .success(()) } }
                case .data(let packet):
                    (failures, empty) = (0, 0)
                    decoding.received(packet[...])
                case .nothing: break
                case .stalled:
                    failures += 1
                    if failures == 1 { logger.warning("endpoint \(endpoint.name) stalled; cleared") }
                    guard failures < 10 else { return .failure(.failed("endpoint \(endpoint.name) stalls again and again")) }
                    guard stop.sleep(seconds: 0.01 * Double(1 << failures)) else { return .success(()) }
                case .unplugged:
                    decoding.unplugged()
                    logger.info("unplugged, or reset")
                    return .success(())
                case .failed(let sentence):
                    failures += 1
                    // A failing endpoint is given up after ten in a row, never spun on.
                    guard failures < 10 else { return .failure(.failed(sentence)) }
                    guard stop.sleep(seconds: 0.01 * Double(1 << failures)) else { return .success(()) }
                }
            }
            if let deadline = decoding.deadline, deadline <= ContinuousClock.now { decoding.idle() }
            // Every transfer failed to go out again: nothing would ever wake this loop.
            if ring.inFlight == 0 {
                return .failure(.failed("endpoint \(endpoint.name) cannot be read: its transfers could not be submitted again"))
            }
        }
    }

    /// A boot keyboard sends a report when its keys change, not again and again while they
    /// do not (SET_IDLE 0, as usbhid asks), in the boot format (SET_PROTOCOL 0). Best effort:
    /// a keyboard that refuses either still sends reports that decode the same.
    private static func reportOnChangeOnly(_ handle: OpaquePointer, interface: UInt8) {
        for request: UInt8 in [0x0B, 0x0A] {  // SET_PROTOCOL (boot), SET_IDLE (0: only on change)
            _ = libusb_control_transfer(handle, 0x21, request, 0, UInt16(interface), nil, 0, 1000)
        }
    }

    /// The descriptors libusb waits on (its event and timer descriptors, the device's node).
    private static func pollDescriptors(_ context: OpaquePointer) -> [pollfd] {
        guard let list = libusb_get_pollfds(context) else { return [] }
        defer { libusb_free_pollfds(list) }
        var descriptors: [pollfd] = []
        var index = 0
        while let entry = list[index] {
            descriptors.append(pollfd(fd: entry.pointee.fd, events: entry.pointee.events, revents: 0))
            index += 1
        }
        return descriptors
    }

    private func report(_ state: Device.State, _ error: String?) {
        guard !stop.isStopped else { return }
        var device = USBDriver.describe(node, id: id, spec: spec)
        device.hint = hint
        device.state = state
        device.error = error
        events.yield(.device(device))
    }
}

/// libusb set up once for the process, before the first context: no scan of its own.
enum USBLibrary {
    static let ready: Bool = scanbridge_libusb_skip_discovery() == 0
}
