import Foundation
import GRDB
import Glibc
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// A journal that cannot be written for a while (the database locked by another process, a
/// full disk) loses no device read: the reads wait, the device says why, and once writing
/// works again every read is journaled, in the order read, with gap-free seqs.
@Suite("Journal outages end to end", .heavy, .timeLimit(.minutes(5)))
struct JournalOutageTests {
    /// The looping script's texts, one read every 50 ms: a lost read shows as a break in the cycle.
    static let cycle = (1...7).map { "item-\($0)" }

    /// A daemon in `harness`'s folder whose mock till plays the cycle in a loop.
    static func start(_ harness: DaemonHarness, arguments: [String] = []) async throws -> (DaemonHarness, ScanBridgeClient) {
        _ = try harness.write("till.script", cycle.map { "0.05 \($0)" }.joined(separator: "\n") + "\n")
        let config = try harness.write(
            "scanbridge.yaml", "mock:\n  - kind: barcode\n    id: till-1\n    script: till.script\n    loop: true\n")
        let daemon = try DaemonHarness.reusing(harness, arguments: ["--config", config] + arguments)
        try await daemon.start()
        let client = try await daemon.connect()
        try await waitUntil("the first reads journaled") { try await journaled(client).count >= 3 }
        return (daemon, client)
    }

    static func journaled(_ client: ScanBridgeClient) async throws -> [ScanEvent] {
        let recent = try await client.call("events.recent", ["limit": 1000])
        return try (recent["events"]?.arrayValue ?? []).map { try ScanEvent(wire: $0) }
    }

    static func journalStatus(_ client: ScanBridgeClient) async throws -> JSONValue {
        try await client.call("bridge.hello")["journal"] ?? .null
    }

    static func till(_ client: ScanBridgeClient) async throws -> Device? {
        try await client.devices().first { $0.id == "mock:till-1" }
    }

    /// Waits for the device to show `reason`, with reads waiting, runs `during`, then `restore`,
    /// and checks that every read the till made is journaled, in order, seqs gap-free.
    static func outage(
        _ client: ScanBridgeClient, reason: String, during: () async throws -> Void = {}, restore: () throws -> Void
    ) async throws {
        let sentence = "reads are waiting: the journal cannot be written (\(reason))"
        try await waitUntil("the till showing why its reads wait", timeout: .seconds(60)) {
            try await till(client)?.error == sentence
        }
        #expect(try await till(client)?.state == .error)
        try await waitUntil("reads waiting in the spool") { try await journalStatus(client)["spooled"]?.intValue ?? 0 > 1 }
        let before = try await journaled(client).count
        try await during()
        try restore()
        try await waitUntil("the till ready again", timeout: .seconds(60)) { try await till(client)?.state == .ready }
        // Stop the script, then let the lane record what it holds.
        _ = try await client.call("mock.detach", ["id": "mock:till-1"])
        try await waitUntil("nothing waiting", timeout: .seconds(30)) {
            try await journalStatus(client)["spooled"]?.intValue == 0
        }
        let events = try await journaled(client)
        #expect(events.count >= before + 2 && events.count < 1000, "the reads that waited are journaled too")
        #expect(events.map(\.seq) == Array(1...UInt64(events.count)), "seqs gap-free from 1")
        let expected = events.indices.map { cycle[$0 % cycle.count] }
        #expect(events.map(\.text) == expected, "every read, in the order read: none lost")
        let status = try await journalStatus(client)
        #expect(status["walBytes"]?.intValue ?? 0 > 0)
        #expect(status["checkpointFailures"]?.intValue != nil && status["pruneFailures"]?.intValue == 0)
    }

    /// Also shows the gateway's `/readyz` unready while the journal cannot be written.
    @Test func databaseLockedByAnotherProcess() async throws {
        let (daemon, client) = try await Self.start(try DaemonHarness(), arguments: ["--http", "127.0.0.1:0"])
        let created = try await client.call("tokens.create", ["name": "probe", "role": "reader"])
        let readyz = {
            try await daemon.gatewayClient().request(
                "GET", "/readyz", headers: [("Authorization", "Bearer \(created["secret"]?.stringValue ?? "")")])
        }
        #expect(try await readyz().status == 200)
        // Another process's write lock, as a sqlite3 shell's BEGIN EXCLUSIVE would hold it: the
        // daemon's commits wait out their busy timeout and fail with SQLITE_BUSY.
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        configuration.busyMode = .timeout(10)
        let other = try DatabaseQueue(path: daemon.databasePath, configuration: configuration)
        try await other.writeWithoutTransaction { try $0.execute(sql: "BEGIN EXCLUSIVE") }
        var locked = true
        defer { if locked { try? other.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") } } }
        let doctor = try await run(
            "scanbridge", ["doctor", "--socket", daemon.socketPath],
            prefix: ["/usr/bin/env", "PCSCLITE_CSOCK_NAME=\(daemon.directory.path)/no-pcscd"])
        #expect(doctor.out.contains("journal  WAL "), "\(doctor.out)")
        try await Self.outage(client, reason: "the database is locked by another process") {
            let unready = try await readyz()
            #expect(unready.status == 503, "\(unready)")
            #expect(unready.json?["status"]?.stringValue == "unready")
            #expect(unready.json?["reasons"]?.arrayValue?.map(\.stringValue) == ["the journal cannot be written"])
        } restore: {
            try other.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") }
            locked = false
        }
        #expect(try await readyz().status == 200, "ready again once the journal is written")
        await client.close()
        #expect(try await daemon.stop() == 0)
    }

    @Test(.enabled(if: getuid() == 0, "mounts a small tmpfs: needs root"))
    func diskFull() async throws {
        let harness = try DaemonHarness()
        let folder = harness.directory.path
        // The daemon's folder on a filesystem of its own, small enough to fill.
        try #require(Self.shell("mount -t tmpfs -o size=4m,mode=0700 tmpfs '\(folder)'") == 0, "mount a tmpfs on \(folder)")
        defer { _ = Self.shell("umount -l '\(folder)'") }
        let (daemon, client) = try await Self.start(harness)
        let filler = harness.directory.appendingPathComponent("filler").path
        Self.fill(filler)
        defer { unlink(filler) }
        try await Self.outage(client, reason: "disk full") { unlink(filler) }
        await client.close()
        #expect(try await daemon.stop() == 0)
    }

    /// Writes `path` until the filesystem has no room left.
    static func fill(_ path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0, count: 4096)
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Runs a shell command (mount, umount) and answers its wait status.
    static func shell(_ command: String) -> Int32 {
        var pid = pid_t()
        let words = ["/bin/sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { for word in argv { free(word) } }
        guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return status
    }
}
