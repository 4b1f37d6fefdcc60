import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC

/// `devices.list`, the operator's say over discovered scanners: `devices.candidates`,
/// `devices.claim`, `devices.release`, and `devices.reset`.
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
        "devices.reset": { params, connection in
            let id = try params.requiredString("id")
            guard let resets = connection.services.resets else {
                throw ScanBridgeError.unavailable("this daemon cannot reset USB devices")
            }
            return MethodOutcome(try Payload.encoding(try await resets.reset(id)))
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
