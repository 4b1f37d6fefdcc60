import Foundation
import NIOCore
import NIOHTTP1
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeServer

extension GatewayRouter {
    /// Methods that need a connection that stays open, refused over `POST /v1/rpc`.
    static let needOpenConnection: Set<String> = [
        "events.subscribe", "handlers.register", "products.stage", "products.commit",
    ]

    /// `POST /v1/rpc`: one request or batch, answered as on the Unix socket, with the token's
    /// role; 204 when nothing needs an answer.
    func call(_ request: GatewayRequest, token: AuthenticatedToken, on channel: any Channel) async -> GatewayResponse {
        let contentType = request.head.headers.first(name: "Content-Type") ?? ""
        guard contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
        else {
            return .refusal(
                .unsupportedMediaType, "unsupported_media_type",
                "unsupported media type: send the JSON-RPC request with 'Content-Type: application/json'")
        }
        let body = request.body ?? ByteBuffer()
        // The connection the methods see: its role and identity are the token's. Its outbox
        // stays empty: answers go into the response.
        let connection = Connection(
            id: nextConnectionNumber(), role: token.role, identity: .token(id: token.id), services: services,
            channel: channel, writer: nil, logger: logger)
        switch ReceivedLine(body.readableBytesView, maxBatch: services.limits.maxBatch) {
        case .blank:
            return Self.rpc(
                RPCMessage.error(
                    id: .null, RPCError(code: RPCError.invalidRequest, message: "invalid request: the body is empty")))
        case .batchTooLarge:
            return Self.rpc(
                RPCMessage.error(
                    id: .null,
                    RPCError(
                        code: RPCError.invalidRequest,
                        message: "batch too large: a batch may hold at most \(services.limits.maxBatch) elements")))
        case .parsed(.unparsable(let error)):
            return Self.rpc(RPCMessage.error(id: .null, error))
        case .parsed(.single(let message)):
            if let refusal = Self.refusal(of: message) { return Self.rpc(JSONWriter.bytes(refusal)) }
            if Self.needsOpenConnection(message) { return .noContent }
            let answer = await services.dispatcher.answer(message, on: connection)
            await answer.afterResponse?()
            return answer.payload.map { Self.rpc(JSONWriter.bytes($0)) } ?? .noContent
        case .parsed(.batch(let messages)):
            let allowed = messages.filter { !Self.needsOpenConnection($0) }
            var answered = await services.dispatcher.answer(batch: allowed, on: connection).makeIterator()
            var payloads: [Payload] = []
            for message in messages {
                if Self.needsOpenConnection(message) {
                    if let refusal = Self.refusal(of: message) { payloads.append(refusal) }
                    continue
                }
                let answer = answered.next()!
                await answer.afterResponse?()
                if let payload = answer.payload { payloads.append(payload) }
            }
            return payloads.isEmpty ? .noContent : Self.rpc(JSONWriter.bytes(.array(payloads)))
        }
    }

    private static func needsOpenConnection(_ message: IncomingMessage) -> Bool {
        switch message {
        case .request(_, let method, _), .notification(let method, _): needOpenConnection.contains(method)
        default: false
        }
    }

    /// The `-32601` answer to a request for a method that needs an open connection.
    private static func refusal(of message: IncomingMessage) -> Payload? {
        guard case .request(let id, let method, _) = message, needOpenConnection.contains(method) else { return nil }
        return RPCMessage.errorPayload(
            id: id,
            RPCError(
                code: RPCError.methodNotFound,
                message:
                    "method not found over HTTP: \(method) needs a connection that stays open; call it over the WebSocket /v1/ws"
            ))
    }

    private static func rpc(_ body: [UInt8]) -> GatewayResponse { .json(.ok, body) }
}
