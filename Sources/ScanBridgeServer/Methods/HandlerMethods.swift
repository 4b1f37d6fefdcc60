import Logging
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC

/// `handlers.register`: a client becomes an out-of-process handler until it disconnects.
enum HandlerMethods {
    static let all: [String: RPCMethod] = [
        "handlers.register": { params, connection in
            let name = try params.requiredText("name", maxLength: 64)
            guard !connection.services.bridge.router.inProcessHandlerNames.contains(name) else {
                throw ScanBridgeError.invalidParams(
                    "name: '\(name)' is a built-in handler's name; choose another", field: "name")
            }
            let match = try params.object("match")
            let symbologies = try match?.strings("symbologies")
            for symbology in symbologies ?? [] where !Symbology.barcode.contains(symbology) && !Symbology.nfc.contains(symbology)
            {
                throw ScanBridgeError.invalidParams(
                    "match.symbologies: unknown symbology '\(symbology)'", field: "match.symbologies")
            }
            var pattern: TextPattern?
            if let text = try match?.string("pattern") {
                do {
                    pattern = try TextPattern(text, matching: .anywhere)
                } catch {
                    throw ScanBridgeError.invalidParams("match.pattern: \(error)", field: "match.pattern")
                }
            }
            let kinds = try match?.kinds("kinds")
            let priority = try params.integer("priority", in: -1000...1000) ?? 0
            let registered = connection.registerHandler { id in
                RemoteHandler(
                    id: id, name: name, priority: Int(priority),
                    match: HandlerMatch(kinds: kinds, symbologies: symbologies.map(Set.init), pattern: pattern),
                    timeout: connection.services.limits.handlerTimeout, requests: connection.daemonRequests,
                    send: { [outbox = connection.outbox] in outbox.enqueue($0) })
            }
            guard let id = registered else {
                let limit = connection.services.limits.handlersPerConnection
                throw ScanBridgeError.overloaded("a connection may register at most \(limit) handlers")
            }
            connection.logger.info(
                "handler registered",
                metadata: ["handler.name": "\(name)", "handler.id": "\(id)", "handler.priority": "\(priority)"])
            return MethodOutcome(.object([("handler", .string(id))]))
        }
    ]
}
