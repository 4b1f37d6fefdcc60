import Foundation
import FuzzSupport
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOWebSocket
import ScanBridgeServer

@testable import ScanBridgeGateway

/// What the web gateway reads from a client, the first byte choosing which. A request's
/// head: its target (path, query, `access_token`), `Authorization: Bearer`, `Last-Event-ID`
/// over `since`, `Origin` (normalized as a token's origins are) and `Host`. Or a WebSocket's
/// bytes, in reads of any size, through the frame decoder and the handlers that join
/// fragments and check each message. Any bytes give a request, messages or a refusal, never
/// a crash; an origin normalizes to itself, and no message is over the limit.
enum FuzzGateway: FuzzTarget {
    static func test(_ bytes: UnsafeBufferPointer<UInt8>) {
        var input = FuzzInput(bytes)
        if input.byte() % 2 == 0 {
            request(input.remaining())
        } else {
            webSocket(&input)
        }
    }

    /// A listener on every address, and one named host, so that `Host` meets each rule.
    private static let access: GatewayAccess = {
        let settings = GatewaySettings(
            listen: [GatewayAddress(host: "0.0.0.0", port: 8765)], hosts: ["pos.example", "[::1]:8765"], webRoot: "/")
        let access = GatewayAccess(settings: settings, tokens: nil)
        access.listening(on: [GatewayAddress(host: "0.0.0.0", port: 8765), GatewayAddress(host: "::1", port: 8765)])
        return access
    }()

    /// The text as a request's head: its first line the request line (or its target alone),
    /// each later line a `Name: value` header, as NIOHTTP1 hands them to the gateway.
    private static func request(_ data: [UInt8]) {
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let words = (lines.first ?? "").split(separator: " ")
        let target = words.count >= 2 ? words[1] : lines.first ?? ""
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon]
            // NIOHTTP1's parser takes a header name only of a token's characters, and trims the value.
            guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { continue }
            headers.add(name: String(name), value: String(trimmed(line[line.index(after: colon)...])))
        }
        let request = GatewayRequest(
            head: HTTPRequestHead(version: .http1_1, method: .GET, uri: String(target), headers: headers), body: nil)
        _ = request.credential
        _ = request.webSocketProtocols
        _ = request.logDescription
        if let origin = request.origin, let normal = try? TokenOrigin.normalized(origin) {
            let again = try? TokenOrigin.normalized(normal)
            fuzzCheck(again == normal, "'\(origin)' normalizes to '\(normal)', which normalizes to '\(again ?? "an error")'")
        }
        if let host = headers.first(name: "Host") {
            if let (name, _) = GatewayAccess.split(host: host) {
                fuzzCheck(!name.isEmpty && name == name.lowercased(), "Host '\(host)' names '\(name)'")
            }
            _ = access.allows(host: host)
        }
        guard let (_, since) = try? GatewayRouter.subscription(of: request) else { return }
        // Last-Event-ID, when a browser sends one, is where the stream resumes, whatever `since` says.
        if let resume = headers.first(name: "Last-Event-ID"), !resume.isEmpty {
            fuzzCheck(
                since == UInt64(resume.trimmingCharacters(in: .whitespaces)), "Last-Event-ID '\(resume)' gave \(since ?? 0)")
        }
    }

    /// A WebSocket's bytes after its upgrade, with a message limit small enough to reach
    /// (the daemon's, `server.max_line_bytes`, is configurable too).
    private static func webSocket(_ input: inout FuzzInput) {
        let limit = Int(input.byte()) + 1
        // As NIOWebSocketServerUpgrader makes the decoder, then the gateway's own handlers.
        let channel = EmbeddedChannel(
            handlers: [ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: limit))]
                + GatewayRouter.messageHandlers(maxMessageBytes: limit, metrics: .none))
        // A closed channel still runs its event loop's last tasks, which hold the channel.
        defer { _ = try? channel.finish(acceptAlreadyClosed: true) }
        for chunk in input.chunks() {
            do {
                try channel.writeInbound(channel.allocator.buffer(bytes: chunk))
            } catch {
                // Every error of the decoder and the joiner is answered with a close frame,
                // after which the channel is closed: none goes on unhandled.
                fuzzCheck(error as? ChannelError == .ioOnClosedChannel, "a WebSocket's bytes threw \(error)")
                return
            }
            while let message = try? channel.readInbound(as: ByteBuffer.self) {
                fuzzCheck(message.readableBytes <= limit, "a message of \(message.readableBytes) bytes, over \(limit)")
            }
        }
    }

    private static func trimmed(_ text: Substring) -> Substring {
        let isSpace = { (character: Character) in character == " " || character == "\t" || character == "\r" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return text[first...last]
    }
}
