import ScanBridgeRPC

/// `devices.list`.
enum DeviceMethods {
    static let all: [String: RPCMethod] = [
        "devices.list": { _, connection in
            MethodOutcome(.object([("devices", try Payload.encoding(connection.services.bridge.registry.devices))]))
        }
    ]
}
