import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Testing

/// Starting and stopping: stale sockets, a live daemon already there, signals.
@Suite("Daemon lifecycle", .heavy, .timeLimit(.minutes(5)))
struct LifecycleTests {
    @Test func staleSocketFromACrashIsReclaimed() async throws {
        let daemon = try await startDaemon(["--mock", "nfc"])
        try await daemon.crash()
        #expect(FileManager.default.fileExists(atPath: daemon.socketPath), "kill -9 leaves the socket file")
        try await daemon.start()
        let client = try await daemon.connect()
        #expect(try await client.devices().count == 1)
        await client.close()
    }

    @Test func aLiveDaemonIsNotReplaced() async throws {
        let first = try await startDaemon()
        let second = try DaemonHarness.reusing(first, arguments: [])
        await #expect(throws: DaemonHarness.Failure.self) { try await second.start(timeout: .seconds(20)) }
        #expect(second.log.contains("already running"))
        let client = try await first.connect()
        #expect(try await client.call("bridge.hello")["name"] == "scanbridge", "the first daemon still serves")
        await client.close()
    }

    @Test func aFileInTheWayIsNotRemoved() async throws {
        let harness = try DaemonHarness()
        try harness.write("scanbridge.sock", "not a socket")
        await #expect(throws: DaemonHarness.Failure.self) { try await harness.start() }
        #expect(harness.log.contains("not a socket"))
        #expect(try String(contentsOfFile: harness.socketPath, encoding: .utf8) == "not a socket")
    }

    @Test func badConfigIsAClearError() async throws {
        let harness = try DaemonHarness()
        let config = try harness.write("bad.yaml", "server:\n  max_line_bytez: 10\n")
        let daemon = try DaemonHarness.reusing(harness, arguments: ["--config", config])
        await #expect(throws: DaemonHarness.Failure.self) { try await daemon.start() }
        #expect(daemon.log.contains("unknown key 'max_line_bytez'"))
    }

    /// A limit out of its range stops the daemon with the key, the value and the range: zero and
    /// negative limits, a retention whose seconds would overflow, a timeout too long; and a
    /// USB device named badly, in the config or with --device, with the sentence saying so.
    @Test(arguments: [
        ("journal:\n  retention_days: 0\n", "journal.retention_days is 0; it must be between 1 and 36500"),
        (
            "journal:\n  retention_days: 9223372036854775807\n",
            "journal.retention_days is 9223372036854775807; it must be between 1 and 36500"
        ),
        ("journal:\n  retention_events: -5\n", "journal.retention_events is -5; it must be between 1 and 1000000000"),
        ("server:\n  max_connections: 0\n", "server.max_connections is 0; it must be between 1 and 100000"),
        ("server:\n  pending_requests: -1\n", "server.pending_requests is -1; it must be between 1 and 1000000"),
        ("handlers:\n  timeout_ms: 600000\n", "handlers.timeout_ms is 600000; it must be between 10 and 60000"),
        ("usb:\n  auto_reset_after_errors: 0\n", "usb.auto_reset_after_errors is 0; it must be between 1 and 100"),
        (
            "scanners:\n  claim: [\"usb:0403:6001,interface=0,baud=9600\"]\n",
            "scanners.claim usb:0403:6001: unknown setting 'baud' for a USB device"
        ),
        ("scanners:\n  claim: [\"usb:0403:6001\"]\n", "scanners.claim usb:0403:6001: a USB device needs interface=N"),
        ("log_level: info\n", "--device usb:403:6001: a USB device is named VID:PID[:SERIAL] in hex"),
    ])
    func aNumberOutOfItsRangeIsAClearError(config text: String, message: String) async throws {
        let harness = try DaemonHarness()
        let config = try harness.write("bad.yaml", text)
        // A config that only sets the log level stands beside a bad --device.
        let device = text == "log_level: info\n" ? ["--device", "usb:403:6001,interface=0"] : []
        let daemon = try DaemonHarness.reusing(harness, arguments: ["--config", config] + device)
        await #expect(throws: DaemonHarness.Failure.self) { try await daemon.start() }
        #expect(daemon.log.contains(message), "\(daemon.log)")
        #expect(!daemon.log.contains("Fatal error"))
    }

    @Test func aMalformedOrderReferencePatternIsAClearError() async throws {
        let harness = try DaemonHarness()
        let config = try harness.write("bad.yaml", "orders:\n  reference_pattern: \"RM-[0-9\"\n")
        let daemon = try DaemonHarness.reusing(harness, arguments: ["--config", config])
        await #expect(throws: DaemonHarness.Failure.self) { try await daemon.start() }
        #expect(daemon.log.contains("orders.reference_pattern: 'RM-[0-9' is not a POSIX extended regular expression"))
    }

    @Test func aClientThatShutsItsSideStillGetsItsAnswers() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        let raw = try await RawConnection.connect(socketPath: daemon.socketPath)
        try await raw.send(
            #"{"jsonrpc":"2.0","id":1,"method":"scan.inject","params":{"device":"mock:till-1","text":"4006381333931"}}"#)
        try await raw.send(#"{"jsonrpc":"2.0","id":2,"method":"devices.list"}"#)
        try await raw.finishSending()
        let ids = try await within("both answers, then the close", timeout: .seconds(20)) { () async -> [Int64] in
            var ids: [Int64] = []
            for await line in raw.lines {
                if let id = (try? JSONValue(parsing: Array(line.utf8)))?["id"]?.intValue { ids.append(id) }
            }
            return ids
        }
        #expect(Set(ids) == [1, 2])
    }

    @Test func aDeviceForADriverNotBuiltInIsLoggedNotFatal() async throws {
        // `laser` is a driver no build has, so this holds whatever drivers a build includes.
        let daemon = try await startDaemon(["--mock", "barcode:till-1", "--device", "laser:/dev/laser0"])
        #expect(daemon.log.contains("no driver 'laser' in this build"))
        let client = try await daemon.connect()
        #expect(try await client.devices().map(\.id) == ["mock:till-1"])
        await client.close()
    }

    @Test func anUnknownDriverOrMockOptionIsAClearError() async throws {
        for arguments in [["--drivers", "mock,laser"], ["--mock", "laser:1"], ["--mock", "barcode:"]] {
            let daemon = try DaemonHarness(arguments: arguments)
            await #expect(throws: DaemonHarness.Failure.self) { try await daemon.start() }
            #expect(daemon.log.contains("scanbridged: "), "one sentence for \(arguments): \(daemon.log)")
        }
    }

    @Test func sigintStopsCleanly() async throws {
        let daemon = try await startDaemon(["--mock", "barcode"])
        let client = try await daemon.connect()
        _ = try await client.call("events.subscribe")
        #expect(try await daemon.stop(signal: SIGINT) == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        await client.close()
    }
}
