import CLibUSB

/// The IN endpoint of an interface that the `usb` driver reads, as the device's active
/// configuration describes it.
struct USBEndpoint: Equatable {
    var address: UInt8
    var isInterrupt: Bool
    /// Bytes a packet holds at most: the size of each transfer, so that one transfer is one
    /// packet and a per-packet header (`packet_header`) is always at its start.
    var maxPacketSize: Int
    /// The interface is a HID boot keyboard (class 3, subclass 1, protocol 1): its packets
    /// are keyboard reports, not text.
    var isBootKeyboard = false

    /// `0x81`.
    var name: String { "0x" + String(address, radix: 16) }

    /// The endpoint `spec` names, or the interface's first interrupt or bulk IN endpoint;
    /// a sentence saying what the device has when it has no such thing.
    static func find(_ handle: OpaquePointer, for spec: USBDeviceSpec) -> Result<USBEndpoint, USBFailure> {
        var config: UnsafeMutablePointer<libusb_config_descriptor>?
        let result = libusb_get_active_config_descriptor(libusb_get_device(handle), &config)
        guard result == 0, let config else {
            return .failure(.failed("cannot read the device's configuration: \(usbErrorText(result))"))
        }
        defer { libusb_free_config_descriptor(config) }
        let interfaces = (0..<Int(config.pointee.bNumInterfaces)).compactMap { index -> libusb_interface_descriptor? in
            let interface = config.pointee.interface[index]
            // The first alternate setting: the one a claim selects.
            return interface.num_altsetting > 0 ? interface.altsetting[0] : nil
        }
        guard let interface = interfaces.first(where: { $0.bInterfaceNumber == spec.interface }) else {
            let numbers = interfaces.map { String($0.bInterfaceNumber) }.joined(separator: ", ")
            return .failure(.failed("the device has no interface \(spec.interface) (it has \(numbers))"))
        }
        let endpoints = (0..<Int(interface.bNumEndpoints)).map { interface.endpoint[$0] }.compactMap { endpoint -> USBEndpoint? in
            let type = endpoint.bmAttributes & 0x03
            guard endpoint.bEndpointAddress & 0x80 != 0, type == 2 || type == 3 else { return nil }
            return USBEndpoint(
                address: endpoint.bEndpointAddress, isInterrupt: type == 3, maxPacketSize: Int(endpoint.wMaxPacketSize & 0x7FF))
        }
        let chosen = spec.endpoint.map { wanted in endpoints.first { $0.address == wanted } } ?? endpoints.first
        guard var chosen, chosen.maxPacketSize > spec.packetHeader else {
            let names = endpoints.isEmpty ? "none" : endpoints.map(\.name).joined(separator: ", ")
            let wanted = spec.endpoint.map { "IN endpoint 0x" + String($0, radix: 16) } ?? "interrupt or bulk IN endpoint"
            return .failure(.failed("interface \(spec.interface) has no \(wanted) to read (it has \(names))"))
        }
        chosen.isBootKeyboard =
            interface.bInterfaceClass == 3 && interface.bInterfaceSubClass == 1 && interface.bInterfaceProtocol == 1
        return .success(chosen)
    }
}
