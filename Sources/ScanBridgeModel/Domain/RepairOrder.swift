public import Foundation

/// A Repair Minder repair ticket and the devices booked in on it.
public struct RepairOrder: Sendable, Hashable {
    public var id: String
    /// What is printed on the ticket (`RM-1001`); unique.
    public var reference: String
    public var status: String
    public var clientId: String?
    public var clientName: String?
    public var createdAt: Date
    public var devices: [RepairDevice]

    public init(
        id: String, reference: String, status: String, clientId: String? = nil, clientName: String? = nil,
        createdAt: Date, devices: [RepairDevice] = []
    ) {
        self.id = id
        self.reference = reference
        self.status = status
        self.clientId = clientId
        self.clientName = clientName
        self.createdAt = createdAt
        self.devices = devices
    }

    public var wire: JSONValue {
        .object([
            "id": .string(id), "reference": .string(reference), "status": .string(status),
            "clientId": clientId.map(JSONValue.string) ?? .null, "clientName": clientName.map(JSONValue.string) ?? .null,
            "createdAt": .string(EventTime.format(createdAt)), "devices": .array(devices.map(\.wire)),
        ])
    }
}

/// A device booked in for repair, tagged with its own label.
public struct RepairDevice: Sendable, Hashable {
    public var id: String
    public var orderId: String
    public var make: String?
    public var model: String?
    public var serial: String?
    public var status: String

    public init(id: String, orderId: String, make: String? = nil, model: String? = nil, serial: String? = nil, status: String) {
        self.id = id
        self.orderId = orderId
        self.make = make
        self.model = model
        self.serial = serial
        self.status = status
    }

    public var wire: JSONValue {
        .object([
            "id": .string(id), "orderId": .string(orderId), "make": make.map(JSONValue.string) ?? .null,
            "model": model.map(JSONValue.string) ?? .null, "serial": serial.map(JSONValue.string) ?? .null,
            "status": .string(status),
        ])
    }
}
