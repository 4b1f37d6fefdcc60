import Foundation
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC

/// `mock.attach`, `mock.detach` and `scan.inject`: mock devices for tests and demos.
enum MockMethods {
    static let all: [String: RPCMethod] = [
        "mock.attach": { params, connection in
            let mock = try control(connection)
            guard let kind = try params.kind("kind") else {
                throw ScanBridgeError.invalidParams("kind is required", field: "kind")
            }
            let device = try await mock.attach(kind: kind, id: try params.string("id"), name: try params.string("name"))
            return MethodOutcome(.object([("device", try Payload.encoding(device))]))
        },
        "mock.detach": { params, connection in
            try await control(connection).detach(id: try params.requiredString("id"))
            return MethodOutcome(.emptyObject)
        },
        "scan.inject": { params, connection in
            let event = try await connection.services.bridge.ingest(try read(params, connection))
            return MethodOutcome(.object([("event", .raw(event.json))]))
        },
    ]

    /// The methods that take a batch's requests together (`RPCDispatcher.answer(batch:on:)`):
    /// a batch of injections is journaled with one wait for one commit, not one task and one
    /// wait each.
    static let batched: [String: RPCBatchMethod] = [
        "scan.inject": { paramsList, connection in
            await batchOutcomes(paramsList, check: { try read($0, connection) }) { reads in
                await connection.services.bridge.ingest(reads).map { outcome in
                    outcome.map { MethodOutcome(.object([("event", .raw($0.json))])) }
                }
            }
        }
    ]

    private static func control(_ connection: Connection) throws -> any MockDeviceControl {
        guard let mock = connection.services.mock else {
            throw ScanBridgeError.unavailable("the mock driver is not running; start scanbridged with --drivers including mock")
        }
        return mock
    }

    /// The read `scan.inject` asks for, checked against the device it names.
    private static func read(_ params: Params, _ connection: Connection) throws -> RawRead {
        let id = try params.requiredString("device")
        let bridge = connection.services.bridge
        guard let device = bridge.registry.device(id) else {
            throw ScanBridgeError.notFound("no device '\(id)'; devices.list shows the attached ones")
        }
        guard device.driver == "mock" else {
            throw ScanBridgeError.invalidParams(
                "scan.inject works only on mock devices; \(id) is a \(device.driver) device", field: "device")
        }
        guard device.state != .gone else {
            throw ScanBridgeError.unavailable("device \(id) is unplugged; attach it again with mock.attach")
        }
        var read = RawRead(
            device: device.id, driver: device.driver, kind: device.kind, text: try params.string("text"),
            symbology: try params.string("symbology"))
        if let raw = try params.string("raw") {
            guard let data = Data(base64Encoded: raw) else {
                throw ScanBridgeError.invalidParams("raw must be base64", field: "raw")
            }
            read.bytes = Array(data)
        }
        if device.kind == .nfc {
            guard let uid = try params.string("uid") else {
                throw ScanBridgeError.invalidParams("uid is required to tap a card on an NFC device", field: "uid")
            }
            do throws(CodeError) {
                read.uid = try NFCUID(parsing: uid).bytes
            } catch {
                throw ScanBridgeError.invalidParams(error.message, field: "uid")
            }
        } else if read.text == nil {
            throw ScanBridgeError.invalidParams("text is required to scan on a \(device.kind.rawValue) device", field: "text")
        }
        return read
    }
}
