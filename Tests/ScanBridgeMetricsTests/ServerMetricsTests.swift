import Foundation
import ScanBridgeMetrics
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeServer
import ScanBridgeTesting
import Synchronization
import Testing

@Suite("Metrics of the servers")
struct ServerMetricsTests {
    /// A Unix-socket server of its own, at most one connection and 1 KiB lines.
    func serving(_ body: (String, Pipeline) async throws -> Void) async throws {
        let pipeline = Pipeline()
        let services = ServerServices(
            bridge: pipeline.bridge, mock: nil, drivers: [], version: "test",
            limits: ServerLimits(maxLineBytes: 1024, maxConnections: 1, maxConnectionsPerUser: 1),
            metrics: { [metrics = pipeline.metrics] in metrics.exposition() },
            serverMetrics: ServerMetrics(factory: pipeline.metrics.factory))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-metrics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let socket = folder.appendingPathComponent("s.sock").path
        let ready = Atomic(false)
        let server = RPCServer(
            socketPath: socket, services: services, policy: RolePolicy(), logger: Pipeline.quiet,
            onReady: { ready.store(true, ordering: .releasing) })
        let task = Task { try await server.run() }
        defer { task.cancel() }
        try await waitUntil("the server listening") { ready.load(ordering: .acquiring) }
        try await body(socket, pipeline)
    }

    @Test("every transport and refusal reason is shown from the start, at 0")
    func upFront() throws {
        let metrics = PrometheusMetrics()
        _ = ServerMetrics(factory: metrics.factory)
        let exposition = try Exposition(metrics.exposition())
        #expect(exposition["scanbridge_connections"]?.type == "gauge")
        #expect(exposition["scanbridge_requests_refused_total"]?.type == "counter")
        for transport in ["unix", "websocket", "sse", "http"] {
            #expect(exposition.value("scanbridge_connections", ["transport": transport]) == 0)
        }
        for reason in ["overloaded", "forbidden", "unauthorized", "too_large"] {
            #expect(exposition.value("scanbridge_requests_refused_total", ["reason": reason]) == 0)
        }
    }

    @Test("the Unix socket counts its connections, and the connections and lines it refuses")
    func unixSocket() async throws {
        try await serving { socket, pipeline in
            let value = { (name: String, labels: [String: String]) in
                try Exposition(pipeline.metrics.exposition()).value(name, labels)
            }
            let first = try await RawConnection.connect(socketPath: socket)
            try await waitUntil("one connection counted") {
                try value("scanbridge_connections", ["transport": "unix"]) == 1
            }
            let second = try await RawConnection.connect(socketPath: socket)
            try await waitUntil("the second connection refused") {
                try value("scanbridge_requests_refused_total", ["reason": "overloaded"]) == 1
            }
            await second.close()
            try await first.send(String(repeating: "x", count: 2048))
            try await waitUntil("the long line refused") {
                try value("scanbridge_requests_refused_total", ["reason": "too_large"]) == 1
            }
            await first.close()
            try await waitUntil("no connection counted") {
                try value("scanbridge_connections", ["transport": "unix"]) == 0
            }
            #expect(try value("scanbridge_requests_refused_total", ["reason": "forbidden"]) == 0)
        }
    }

    @Test("a method's error is a refusal when a role or a limit refused the call, and only then")
    func refusalsFromErrors() {
        typealias Reason = ServerMetrics.RefusalReason
        #expect(Reason(refusing: ScanBridgeError(.forbidden, "no")) == .forbidden)
        #expect(Reason(refusing: ScanBridgeError.overloaded("too many subscriptions")) == .overloaded)
        #expect(Reason(refusing: RPCError(code: RPCError.forbidden, message: "forbidden")) == .forbidden)
        #expect(Reason(refusing: RPCError(code: RPCError.overloaded, message: "overloaded")) == .overloaded)
        #expect(Reason(refusing: ScanBridgeError.notFound("no device")) == nil)
        #expect(Reason(refusing: RPCError(code: RPCError.methodNotFound, message: "no method")) == nil)
    }

    @Test("the gateway's transports and its refusals are counted through the same calls")
    func gatewayCalls() async throws {
        let metrics = PrometheusMetrics()
        let server = ServerMetrics(factory: metrics.factory)
        try await server.whileConnected(.websocket) {
            server.connected(.sse)
            server.refused(.unauthorized)
            let exposition = try Exposition(metrics.exposition())
            #expect(exposition.value("scanbridge_connections", ["transport": "websocket"]) == 1)
            #expect(exposition.value("scanbridge_connections", ["transport": "sse"]) == 1)
            #expect(exposition.value("scanbridge_requests_refused_total", ["reason": "unauthorized"]) == 1)
        }
        #expect(try Exposition(metrics.exposition()).value("scanbridge_connections", ["transport": "websocket"]) == 0)
    }
}
