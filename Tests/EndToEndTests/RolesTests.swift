import Foundation
import ScanBridgeTesting
import Testing

/// Roles from the peer's credentials (SO_PEERCRED), with a real second user: the CLI run
/// as `nobody` through setpriv. Needs root to switch users.
@Suite("Roles end to end", .enabled(if: getuid() == 0, "switching to another user needs root"), .timeLimit(.minutes(5)))
struct RolesTests {
    static let asNobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

    @Test func aReaderMayReadButNotInject() async throws {
        let daemon = try await startDaemon(
            ["--mock", "barcode:till-1"], config: "socket_group: nogroup\nroles:\n  reader_groups: [nogroup]\n")
        try openFolder(daemon)
        let socket = ["--socket", daemon.socketPath]
        let hello = try await run("scanbridge", ["call", "bridge.hello"] + socket, prefix: Self.asNobody)
        #expect(hello.status == 0, "\(hello.err)")
        #expect(hello.out.contains("\"reader\""))
        let devices = try await run("scanbridge", ["devices"] + socket, prefix: Self.asNobody)
        #expect(devices.status == 0 && devices.out.contains("mock:till-1"))
        let inject = try await run("scanbridge", ["inject", "till-1", "123"] + socket, prefix: Self.asNobody)
        #expect(inject.status == 1)
        #expect(inject.err.contains("error -32003"), "\(inject.err)")
    }

    @Test func aReaderSeesCardsMaskedAndNoContactDetails() async throws {
        let daemon = try await startDaemon(
            ["--mock", "nfc:reader-1"], config: "socket_group: nogroup\nroles:\n  reader_groups: [nogroup]\n")
        try openFolder(daemon)
        let socket = ["--socket", daemon.socketPath]
        let admin = try await daemon.connect()
        _ = try await admin.call(
            "customers.upsert",
            ["customer": ["walletAddress": "rAda", "name": "Ada", "email": "ada@example.com", "phone": "+441234"]])
        _ = try await admin.call("cards.link", ["uid": "04A1B2C3D4E5F6", "walletAddress": "rAda"])
        _ = try await admin.call("scan.inject", ["device": "mock:reader-1", "uid": "04A1B2C3D4E5F6"])
        let hidden = ["04A1B2C3D4", "04:A1:B2:C3:D4", "ada@example.com", "+441234"]

        // A replay, then a live event, on one subscription.
        let watch = try Spawned(
            "scanbridge", ["watch", "--since", "0", "--json"] + socket, prefix: Self.asNobody)
        _ = try await watch.firstLine()
        _ = try await admin.call("scan.inject", ["device": "mock:reader-1", "uid": "04A1B2C3D4E5F6"])
        let recent = try await run("scanbridge", ["call", "events.recent"] + socket, prefix: Self.asNobody)
        #expect(recent.status == 0, "\(recent.err)")
        for output in try await watch.lines(2) + [recent.out] {
            #expect(output.contains("E5F6") && output.contains("\"Ada\""), "\(output)")
            #expect(output.contains("••••••••••E5F6") && output.contains("••:••:••:••:••:E5:F6"), "\(output)")
            for secret in hidden { #expect(!output.contains(secret), "\(secret) in \(output)") }
        }
        watch.interrupt()

        // Operators and admins see the events whole.
        let whole = String(describing: try await admin.call("events.recent"))
        for secret in hidden { #expect(whole.contains(secret), "\(secret) in \(whole)") }
        await admin.close()
    }

    @Test func onlyAnAdminMayClaimOrReleaseScanners() async throws {
        for role in ["reader_groups", "operator_groups"] {
            let daemon = try await startDaemon(
                ["--drivers", "evdev"], config: "socket_group: nogroup\nroles:\n  \(role): [nogroup]\n")
            try openFolder(daemon)
            let socket = ["--socket", daemon.socketPath]
            for command in [["claim", "0627:0001"], ["release", "0627:0001"], ["candidates"]] {
                let result = try await run("scanbridge", ["devices"] + command + socket, prefix: Self.asNobody)
                #expect(result.status == 1 && result.err.contains("error -32003"), "\(role) \(command): \(result.err)")
            }
            let list = try await run("scanbridge", ["devices"] + socket, prefix: Self.asNobody)
            #expect(list.status == 0, "\(role) may list: \(list.err)")
        }
    }

    @Test func aUserInNoRoleGroupIsRefused() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"], config: "socket_group: nogroup\n")
        try openFolder(daemon)
        let hello = try await run(
            "scanbridge", ["call", "bridge.hello", "--socket", daemon.socketPath], prefix: Self.asNobody)
        #expect(hello.status == 1)
        #expect(hello.err.contains("-32003") && hello.err.contains("not allowed"), "\(hello.err)")
        #expect(daemon.log.contains("connection refused"))
    }

    /// The harness folder must be searchable by the other user to reach the socket.
    private func openFolder(_ daemon: DaemonHarness) throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: daemon.directory.path)
    }
}
