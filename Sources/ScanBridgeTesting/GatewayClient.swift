import Foundation
import NIOCore
import NIOSSL
package import ScanBridgeModel

/// A test client of the daemon's gateway: HTTP requests, event streams and WebSockets over
/// real connections, plain or TLS.
package struct GatewayClient: Sendable {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// A whole HTTP answer.
    package struct Reply: Sendable, CustomStringConvertible {
        package let status: Int
        /// Names lowercased.
        package let headers: [String: String]
        package let body: [UInt8]

        package var text: String { String(decoding: body, as: UTF8.self) }
        package var json: JSONValue? { try? JSONValue(parsing: body) }
        /// `error.code` of a refusal's JSON body.
        package var errorCode: String? { json?["error"]?["code"]?.stringValue }
        package var description: String { "\(status) \(text)" }
    }

    package let host: String
    package let port: Int
    private let tls: NIOSSLContext?

    /// - Parameters:
    ///   - address: `HOST:PORT` as the daemon said it listens (`[::1]:PORT` for IPv6).
    ///   - certificate: a PEM file to trust, for a gateway serving TLS.
    package init(address: String, trusting certificate: String? = nil) throws {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]) else {
            throw Failure(description: "not an address: \(address)")
        }
        host = String(address[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        self.port = port
        if let certificate {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificate))
            configuration.certificateVerification = .noHostnameVerification
            tls = try NIOSSLContext(configuration: configuration)
        } else {
            tls = nil
        }
    }

    /// The `Host` header a browser would send for this address.
    package var hostHeader: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    package func connect(reading: Bool = true) async throws -> GatewayConnection {
        try await GatewayConnection.open(host: host, port: port, tls: tls, reading: reading)
    }

    /// The request's bytes; `headers` may replace `Host`.
    package func requestBytes(
        _ method: String, _ target: String, headers: [(String, String)], body: [UInt8]?, close: Bool = true
    ) -> [UInt8] {
        var text = "\(method) \(target) HTTP/1.1\r\n"
        if !headers.contains(where: { $0.0.lowercased() == "host" }) { text += "Host: \(hostHeader)\r\n" }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.count)\r\n" }
        if close { text += "Connection: close\r\n" }
        return Array((text + "\r\n").utf8) + (body ?? [])
    }

    /// One request on a connection of its own.
    package func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        timeout: Duration = .seconds(20)
    ) async throws -> Reply {
        let connection = try await connect()
        defer { Task { await connection.close() } }
        try await connection.send(requestBytes(method, target, headers: headers, body: body))
        return try await within("an answer to \(method) \(target)", timeout: timeout) {
            let (status, headers) = try await connection.readHead()
            return Reply(
                status: status, headers: headers, body: try await connection.readBody(headers: headers, status: status))
        }
    }

    /// `POST /v1/rpc` with a bearer token.
    package func rpc(_ body: String, token: String, headers: [(String, String)] = []) async throws -> Reply {
        try await request(
            "POST", "/v1/rpc",
            headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")] + headers,
            body: Array(body.utf8))
    }

    /// Opens an event stream; a refusal comes back as its reply.
    package func events(
        _ target: String, headers: [(String, String)] = [], reading: Bool = true
    ) async throws -> Result<EventStreamReader, ReplyError> {
        // A slow reader reads only while the test awaits something, until `startReading()`.
        let connection = try await connect(reading: reading)
        try await connection.send(
            requestBytes("GET", target, headers: headers + [("Accept", "text/event-stream")], body: nil, close: false))

        let (status, responseHeaders) = try await within("the head of \(target)") { try await connection.readHead() }
        guard status == 200 else {
            let body = try await connection.readBody(headers: responseHeaders, status: status)
            await connection.close()
            return .failure(ReplyError(reply: Reply(status: status, headers: responseHeaders, body: body)))
        }
        return .success(EventStreamReader(connection: connection, headers: responseHeaders))
    }

    /// Opens a WebSocket; a refusal comes back as its reply.
    /// - Parameter reading: false makes a client whose socket is read only when it asks for
    ///   a frame, so that what the daemon sends it waits in the buffers.
    package func webSocket(_ target: String, headers: [(String, String)] = [], reading: Bool = true) async throws
        -> Result<WebSocketClient, ReplyError>
    {
        let connection = try await connect(reading: reading)
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        try await connection.send(
            requestBytes(
                "GET", target,
                headers: headers + [
                    ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", key),
                    ("Sec-WebSocket-Version", "13"),
                ], body: nil, close: false))
        let (status, responseHeaders) = try await within("the answer to the upgrade") { try await connection.readHead() }
        guard status == 101 else {
            let body = try await connection.readBody(headers: responseHeaders, status: status)
            await connection.close()
            return .failure(ReplyError(reply: Reply(status: status, headers: responseHeaders, body: body)))
        }
        return .success(WebSocketClient(connection: connection, headers: responseHeaders))
    }

    /// A refused stream or upgrade.
    package struct ReplyError: Error, CustomStringConvertible {
        package let reply: Reply
        package var description: String { "refused: \(reply)" }
    }
}
