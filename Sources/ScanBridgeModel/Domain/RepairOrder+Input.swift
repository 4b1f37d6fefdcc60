public import Foundation

extension RepairOrder {
    /// The most devices one order books in: a bench's ticket, not a warehouse.
    public static let maxDevices = 256

    /// Reads an order given by a client (`orders.upsert`, an import row), with the devices given.
    public init(input: JSONFields, now: Date) throws(ScanBridgeError) {
        let id = try input.identifier("id")
        let given = try input.objects("devices") ?? []
        guard given.count <= Self.maxDevices else {
            throw .invalidParams(
                "\(input.field("devices")) may list at most \(Self.maxDevices) devices", field: input.field("devices"))
        }
        var devices: [RepairDevice] = []
        for device in given {
            devices.append(
                RepairDevice(
                    id: try device.identifier("id"), orderId: id, make: try device.text("make"),
                    model: try device.text("model"), serial: try device.text("serial", maxLength: 64),
                    status: try device.status("status") ?? "received"))
        }
        self.init(
            id: id, reference: try input.requiredText("reference", maxLength: 64),
            status: try input.status("status") ?? "open", clientId: try input.text("clientId", maxLength: 128),
            clientName: try input.text("clientName"), createdAt: try input.time("createdAt") ?? now, devices: devices)
    }
}

extension JSONFields {
    /// An id that can travel in a URL or a QR code: letters, digits and `._~-`.
    public func identifier(_ key: String) throws(ScanBridgeError) -> String {
        let id = try requiredText(key, maxLength: 128)
        guard
            id.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._~-".unicodeScalars.contains($0))
            })
        else {
            throw .invalidParams("\(field(key)) may hold only letters, digits and . _ ~ -; got '\(id)'", field: field(key))
        }
        return id
    }

    /// A workflow status word (`in_progress`, `diagnosing`).
    func status(_ key: String) throws(ScanBridgeError) -> String? {
        guard let status = try text(key, maxLength: 32) else { return nil }
        guard status.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            throw .invalidParams("\(field(key)) must be a word such as in_progress; got '\(status)'", field: field(key))
        }
        return status.lowercased()
    }
}
