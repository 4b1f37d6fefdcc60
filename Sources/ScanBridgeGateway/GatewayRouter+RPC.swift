import Foundation
import NIOCore
import NIOHTTP1
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeServer

extension GatewayRouter {
    /// `POST /v1/rpc`: one request or batch, answered as a line on the Unix socket, under the
    /// same admission, with the token's role; 204 when nothing needs an answer.
    func call(_ request: GatewayRequest, token: AuthenticatedToken, on channel: any Channel) async -> GatewayResponse {
        let contentType = request.head.headers.first(name: "Content-Type") ?? ""
        guard contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
        else {
            return .refusal(
                .unsupportedMediaType, "unsupported_media_type",
                "unsupported media type: send the JSON-RPC request with 'Content-Type: application/json'")
        }
        let body = request.body ?? ByteBuffer()
        let received = ReceivedLine(body.readableBytesView, maxBatch: services.limits.maxBatch)
        // A token's calls together are admitted as one connection's: each POST has a
        // connection of its own, and a token could otherwise run any number at once.
        let calls: Int
        if case .parsed(.batch(let messages)) = received { calls = messages.count } else { calls = 1 }
        guard connections.claimCalls(calls, token: token.id) else { return connections.tooManyCalls }
        defer { connections.endCalls(calls, token: token.id) }
        // A client that pipelines calls and reads none of the answers holds them until they
        // are written: bounded by token, as a socket connection's outbox bounds its own.
        guard connections.answersHaveRoom(for: token.id) else {
            services.serverMetrics.refused(.overloaded)
            return connections.tooManyAnswers
        }
        // The connection the methods see: its role and identity are the token's. Its outbox
        // stays empty: answers go into the response.
        let connection = Connection(
            id: nextConnectionNumber(), role: token.role, identity: .token(id: token.id), services: services,
            channel: channel, writer: nil, logger: logger)
        guard let answer = await connection.answer(received) else { return .noContent }
        var response = GatewayResponse.json(.ok, answer)
        response.written = connections.claimAnswer(answer.count, token: token.id)
        return response
    }
}
