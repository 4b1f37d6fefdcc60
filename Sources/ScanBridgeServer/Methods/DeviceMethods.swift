import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC

/// `devices.list`, and the operator's say over discovered scanners: `devices.candidates`,
/// `devices.claim`, `devices.release`.
enum DeviceMethods {
    static let all: [String: RPCMethod] = [
        "devices.list": { _, connection in
            MethodOutcome(.object([("devices", try Payload.encoding(connection.services.bridge.registry.devices))]))
        },
        "devices.candidates": { _, connection in
            let scanners = try scanners(connection)
            let overrides = scanners.overrides
            return MethodOutcome(
                .object([
                    ("candidates", try Payload.encoding(scanners.candidates())),
                    ("claimed", try Payload.encoding(overrides.claimed)), ("released", try Payload.encoding(overrides.released)),
                ]))
        },
        "devices.claim": { params, connection in
            MethodOutcome(try Payload.encoding(try await scanners(connection).claim(try params.requiredString("id"))))
        },
        "devices.release": { params, connection in
            MethodOutcome(try Payload.encoding(try await scanners(connection).release(try params.requiredString("id"))))
        },
    ]

    private static func scanners(_ connection: Connection) throws -> any ScannerControl {
        guard let scanners = connection.services.scanners else {
            throw ScanBridgeError.unavailable(
                "scanner discovery is off in this daemon (scanners.discover: false in its config); turn it on to claim or release scanners"
            )
        }
        return scanners
    }
}
