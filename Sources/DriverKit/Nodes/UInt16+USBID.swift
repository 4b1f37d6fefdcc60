extension UInt16 {
    /// A USB vendor or product id as the protocol and lsusb write it: four lowercase hex digits (`0c2e`).
    package var usbID: String {
        let digits = String(self, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
