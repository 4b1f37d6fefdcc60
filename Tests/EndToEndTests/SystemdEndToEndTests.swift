import Foundation
import GRDB
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// The daemon as systemd runs it: sockets passed by a socket unit (systemd's own
/// systemd-socket-activate passes them the same way), the watchdog, journald's log lines.
@Suite("systemd end to end", .heavy, .timeLimit(.minutes(5)))
struct SystemdEndToEndTests {
    static let socketActivate = "/usr/bin/systemd-socket-activate"

    /// As scanbridged.socket and scanbridged-http.socket do: systemd listens, and the first
    /// connection starts the daemon, which serves the sockets it was passed and leaves their
    /// files to systemd when it stops.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: socketActivate), "needs systemd-socket-activate"))
    func theFirstConnectionStartsTheDaemonOnThePassedSockets() async throws {
        let harness = try DaemonHarness()
        let socket = harness.directory.appendingPathComponent("run.sock").path
        let port = try Self.freePort()
        let daemon = try Self.activating([
            "-l", socket, "-l", "127.0.0.1:\(port)", "--fdname=rpc:http",
            "-E", "CONFIGURATION_DIRECTORY=\(harness.directory.path)/etc",
            DaemonHarness.productsDirectory.appendingPathComponent("scanbridged").path,
            "--database", harness.databasePath, "--mock", "barcode:till-1",
        ])
        defer { daemon.killNow() }
        // It says so once each socket listens: the file alone exists from the bind, before the
        // listen, and a connection in between is refused.
        try await waitUntil("systemd-socket-activate to listen; its errors: \(daemon.errors)") {
            daemon.errors.components(separatedBy: "Listening on").count > 2
        }
        #expect(!daemon.errors.contains("ready"), "nothing has connected: the daemon has not started")
        let client = try await ScanBridgeClient.connect(socketPath: socket)
        let hello = try await client.call("bridge.hello")
        #expect(hello["role"]?.stringValue == "admin")
        #expect(daemon.errors.contains("socket.activated=true"), "\(daemon.errors)")
        let health = try await GatewayClient(address: "127.0.0.1:\(port)").request("GET", "/healthz")
        #expect(health.status == 200, "the gateway serves the passed TCP listener: \(health)")
        await client.close()
        daemon.terminate()
        #expect(try await daemon.finish(timeout: .seconds(10)) == 0, "\(daemon.errors)")
        #expect(FileManager.default.fileExists(atPath: socket), "the socket file is systemd's: left in place")
    }

    @Test func aPassedSocketTheDaemonCannotServeIsAClearError() async throws {
        let harness = try DaemonHarness()
        let port = try Self.freePort()
        // A datagram socket where a stream socket is expected: the socket unit is wrong. The
        // first datagram starts the daemon.
        let daemon = try Self.activating([
            "--datagram", "-l", "127.0.0.1:\(port)", "-E", "CONFIGURATION_DIRECTORY=\(harness.directory.path)/etc",
            DaemonHarness.productsDirectory.appendingPathComponent("scanbridged").path,
            "--database", harness.databasePath, "--socket", harness.socketPath,
        ])
        defer { daemon.killNow() }
        try await waitUntil("systemd-socket-activate to listen; its errors: \(daemon.errors)") {
            daemon.errors.contains("Listening on")
        }
        let sender = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(sender) }
        var address = Self.loopback(port: port)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(sender, "x", 1, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        #expect(try await daemon.finish(timeout: .seconds(20)) == 2)
        #expect(daemon.errors.contains("not a listening stream socket"), "\(daemon.errors)")
    }

    /// While Foundation's one child-watching thread waits for a child that closed its
    /// inherited descriptors and still runs (systemd-socket-activate started through
    /// `Process`), another child's end is still seen, from the kernel: the test kit's waits
    /// do not depend on that thread.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: socketActivate), "needs systemd-socket-activate"))
    func aChildsEndIsSeenWhileFoundationWaitsForAnother() async throws {
        let harness = try DaemonHarness()
        let activator = try Process.run(
            URL(fileURLWithPath: Self.socketActivate),
            arguments: ["-l", harness.directory.appendingPathComponent("held.sock").path, "/bin/true"])
        defer { kill(activator.processIdentifier, SIGKILL) }
        try await waitUntil("systemd-socket-activate to listen") {
            FileManager.default.fileExists(atPath: harness.directory.appendingPathComponent("held.sock").path)
        }
        let result = try await Spawned(command: ["/bin/sh", "-c", "exit 3"]).finish(timeout: .seconds(20))
        #expect(result.status == 3)
    }

    /// WATCHDOG=1 comes while the daemon works, and stops while its journal writer is stuck
    /// (here behind another process's write lock, which it waits out for seconds).
    @Test func theWatchdogBeatsOnlyWhileTheJournalWriterMoves() async throws {
        let harness = try DaemonHarness(arguments: ["--mock", "barcode:till-1", "--http", "127.0.0.1:0"])
        try await harness.start(environment: ["WATCHDOG_USEC": "200000"])
        try await waitUntil("WATCHDOG=1 from the daemon") { harness.notices().contains("WATCHDOG=1") }
        // Unread, as a busy manager's queue would be: more beats than it holds (ten) must not
        // stall the daemon's watchdog, which would then never see the stuck writer.
        try await Task.sleep(for: .seconds(2))
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: harness.databasePath, configuration: configuration)
        try await other.writeWithoutTransaction { try $0.execute(sql: "BEGIN EXCLUSIVE") }
        let client = try await harness.connect()
        let injection = Task { try? await client.inject(device: "mock:till-1", text: "stuck-1") }
        try await waitUntil("the watchdog to see the writer stuck; log:\n\(harness.log)") {
            harness.log.contains("watchdog: the journal writer made no progress")
        }
        try await other.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") }
        _ = await injection.value
        _ = harness.notices()
        try await waitUntil("WATCHDOG=1 again; log:\n\(harness.log)") { harness.notices().contains("WATCHDOG=1") }
        #expect(harness.log.contains("watchdog: the journal writer moves again"))
        await client.close()
        #expect(try await harness.stop() == 0)
    }

    /// Under journald (JOURNAL_STREAM names standard error) each line starts with its syslog
    /// priority and has no timestamp; `log_format: json` gives one JSON object a line.
    @Test func logLinesForJournaldAndAsJSON() async throws {
        let journald = try DaemonHarness(arguments: ["--mock", "barcode:till-1"])
        var status = stat()
        try #require(stat(journald.logPath, &status) == 0)
        try await journald.start(environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino)"])
        try await journald.stop()
        let lines = journald.log.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("<6>info scanbridge :") && $0.hasSuffix(" ready") }, "\(journald.log)")
        #expect(lines.allSatisfy { $0.first == "<" }, "every line has its priority: \(journald.log)")

        let json = try DaemonHarness(arguments: ["--mock", "barcode:till-1"])
        let config = try json.write("scanbridge.yaml", "log_format: json\n")
        let daemon = try DaemonHarness.reusing(json, arguments: ["--config", config, "--mock", "barcode:till-1"])
        try await daemon.start()
        try await daemon.stop()
        let objects = try daemon.log.split(separator: "\n").map { try JSONValue(parsing: Array($0.utf8)) }
        #expect(objects.contains { $0["message"]?.stringValue == "ready" && $0["level"]?.stringValue == "info" })
        #expect(objects.allSatisfy { $0["time"]?.stringValue != nil })
    }

    /// systemd-socket-activate with `arguments`. It closes the descriptors it did not open
    /// before it starts the daemon, among them the one Foundation's Process watches for the
    /// end of its child, so it is started without Foundation.
    static func activating(_ arguments: [String]) throws -> DirectChild {
        try DirectChild(command: [socketActivate] + arguments)
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return address
    }

    /// A port nothing listens on now (bound and closed at once).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        try #require(bound, "a free port")
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
