import CLibUSB

/// The asynchronous IN transfers kept waiting on one endpoint, one packet each, so that a
/// read is never missed while the last one is being handled. Completions are collected by
/// libusb's callback, which runs inside event handling on the loop's thread, and taken by
/// the loop after it; this object is confined to that thread.
final class TransferRing {
    /// What one finished transfer brought.
    enum Completion {
        case data([UInt8])
        /// Nothing came: a timeout, a cleared stall, a cancellation.
        case nothing
        case stalled
        case unplugged
        case failed(String)
    }

    private let handle: OpaquePointer
    private let endpoint: USBEndpoint
    private var transfers: [UnsafeMutablePointer<libusb_transfer>] = []
    private var finished: [UnsafeMutablePointer<libusb_transfer>] = []
    /// Transfers submitted and not yet called back.
    private(set) var inFlight = 0

    init(handle: OpaquePointer, endpoint: USBEndpoint, count: Int = 4) {
        self.handle = handle
        self.endpoint = endpoint
        for _ in 0..<count {
            guard let transfer = libusb_alloc_transfer(0) else { continue }
            let length = endpoint.maxPacketSize
            transfer.pointee.dev_handle = handle
            transfer.pointee.endpoint = endpoint.address
            transfer.pointee.type = UInt8(
                endpoint.isInterrupt ? LIBUSB_TRANSFER_TYPE_INTERRUPT.rawValue : LIBUSB_TRANSFER_TYPE_BULK.rawValue)
            transfer.pointee.timeout = 0
            transfer.pointee.buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: length)
            transfer.pointee.length = Int32(length)
            transfer.pointee.callback = { transfer in
                guard let transfer, let owner = transfer.pointee.user_data else { return }
                Unmanaged<TransferRing>.fromOpaque(owner).takeUnretainedValue().completed(transfer)
            }
            transfer.pointee.user_data = Unmanaged.passUnretained(self).toOpaque()
            transfers.append(transfer)
        }
    }

    deinit {
        // A transfer still in flight belongs to libusb until its callback: it is left, not freed.
        guard inFlight == 0 else { return }
        for transfer in transfers {
            transfer.pointee.buffer.deallocate()
            libusb_free_transfer(transfer)
        }
    }

    /// Submits every transfer; the libusb error of the first that fails, or 0.
    func submitAll() -> Int32 {
        guard !transfers.isEmpty else { return LIBUSB_ERROR_NO_MEM.rawValue }
        for transfer in transfers {
            let result = submit(transfer)
            if result != 0 { return result }
        }
        return 0
    }

    /// What the transfers finished since last asked brought, each submitted again (unless
    /// the device is gone). Called after event handling, outside any callback.
    func takeCompletions() -> [Completion] {
        let done = finished
        finished = []
        return done.map { transfer in
            let completion = Self.completion(of: transfer, endpoint: endpoint)
            switch completion {
            case .unplugged: break
            case .stalled:
                _ = libusb_clear_halt(handle, endpoint.address)
                fallthrough
            default:
                let result = submit(transfer)
                if result == LIBUSB_ERROR_NO_DEVICE.rawValue { return .unplugged }
                if result != 0 { return .failed("cannot read endpoint \(endpoint.name) again: \(usbErrorText(result))") }
            }
            return completion
        }
    }

    /// Cancels what is in flight and handles events until libusb has called every transfer
    /// back (at most `seconds`): only then may the transfers be freed and the device closed.
    func cancelAll(context: OpaquePointer, seconds: Int = 2) {
        for transfer in transfers { _ = libusb_cancel_transfer(transfer) }
        var waited = 0
        while inFlight > 0, waited < seconds * 10 {
            var tenth = timeval(tv_sec: 0, tv_usec: 100_000)
            _ = libusb_handle_events_timeout_completed(context, &tenth, nil)
            waited += 1
        }
        finished = []
    }

    private func submit(_ transfer: UnsafeMutablePointer<libusb_transfer>) -> Int32 {
        let result = libusb_submit_transfer(transfer)
        if result == 0 { inFlight += 1 }
        return result
    }

    private func completed(_ transfer: UnsafeMutablePointer<libusb_transfer>) {
        inFlight -= 1
        finished.append(transfer)
    }

    private static func completion(of transfer: UnsafeMutablePointer<libusb_transfer>, endpoint: USBEndpoint) -> Completion {
        let status = transfer.pointee.status
        switch status {
        case LIBUSB_TRANSFER_COMPLETED:
            let count = Int(transfer.pointee.actual_length)
            return .data(Array(UnsafeBufferPointer(start: transfer.pointee.buffer, count: max(0, count))))
        case LIBUSB_TRANSFER_NO_DEVICE: return .unplugged
        case LIBUSB_TRANSFER_STALL: return .stalled
        case LIBUSB_TRANSFER_TIMED_OUT, LIBUSB_TRANSFER_CANCELLED: return .nothing
        case LIBUSB_TRANSFER_OVERFLOW:
            return .failed("endpoint \(endpoint.name) sent more than its \(endpoint.maxPacketSize)-byte packets")
        default: return .failed("reading endpoint \(endpoint.name) failed")
        }
    }
}

/// libusb's words for an error code (`Access denied (insufficient permissions)`), for logs and device errors.
func usbErrorText(_ code: Int32) -> String {
    String(cString: libusb_strerror(code))
}
