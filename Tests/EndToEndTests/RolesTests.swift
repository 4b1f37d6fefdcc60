import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// Roles from the peer's credentials (SO_PEERCRED), with a real second user: the CLI run
/// as `nobody` through setpriv. Needs root to switch users.
@Suite(
    "Roles end to end",
    .enabled(if: AnotherUser.unavailableReason == nil, Comment(rawValue: AnotherUser.unavailableReason ?? "")),
    .heavy, .timeLimit(.minutes(5)))
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
        #expect(inject.status == 3, "refused by role")
        #expect(inject.err.contains("error -32003"), "\(inject.err)")
        let reset = try await run("scanbridge", ["devices", "reset", "mock:till-1"] + socket, prefix: Self.asNobody)
        #expect(reset.status == 3 && reset.err.contains("error -32003"), "a reset needs the operator role: \(reset.err)")
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
                #expect(result.status == 3 && result.err.contains("error -32003"), "\(role) \(command): \(result.err)")
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
        #expect(hello.status == 3)
        #expect(hello.err.contains("-32003") && hello.err.contains("not allowed"), "\(hello.err)")
        #expect(daemon.log.contains("connection refused"))
    }

    /// `nobody` with the supplementary group `users` (gid 100), which the config makes operators.
    static let asNobodyInUsers = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--groups=100"]
    static let operatorsAreUsers = "socket_group: nogroup\nroles:\n  operator_groups: [users]\n"

    @Test func aSupplementaryGroupGrantsItsRole() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"], config: Self.operatorsAreUsers)
        try openFolder(daemon)
        let hello = try await run(
            "scanbridge", ["call", "bridge.hello", "--socket", daemon.socketPath], prefix: Self.asNobodyInUsers)
        #expect(hello.status == 0, "\(hello.err)")
        #expect(hello.out.contains("\"operator\""), "\(hello.out)")
    }

    /// The kernel's list of groups is read into a buffer of 64 and again into a larger one
    /// when it does not fit; a zero in it is the root group only when the peer has it, not
    /// the unused rest of the buffer.
    @Test(arguments: [
        ("--groups=" + (5000..<5070).map(String.init).joined(separator: ","), "operator_groups: [5069]", "operator"),
        ("--groups=0", "admin_groups: [0]", "admin"),
        ("--groups=0,5000", "admin_groups: [0]", "admin"),
        ("--clear-groups", "admin_groups: [0]", nil),
    ])
    func theGroupsListIsReadWhole(groups: String, role: String, expected: String?) async throws {
        let daemon = try await startDaemon(
            ["--mock", "barcode:till-1"], config: "socket_group: nogroup\nroles:\n  \(role)\n")
        try openFolder(daemon)
        let hello = try await run(
            "scanbridge", ["call", "bridge.hello", "--socket", daemon.socketPath],
            prefix: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", groups])
        if let expected {
            #expect(hello.status == 0 && hello.out.contains("\"\(expected)\""), "\(hello.out) \(hello.err)")
        } else {
            #expect(hello.status == 3 && hello.err.contains("not allowed"), "\(hello.out) \(hello.err)")
        }
    }

    /// A daemon in a pid namespace of its own cannot see the client's process (its peer pid is
    /// 0 and /proc has no such entry): the groups it gets must come with the connection.
    @Test func groupsComeWithTheConnectionNotFromProc() async throws {
        let wrapper = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scanbridged-pidns-\(UUID().uuidString.prefix(8))")
        let binary = DaemonHarness.productsDirectory.appendingPathComponent("scanbridged").path
        try ExecutableScript.write(
            "#!/bin/sh\nexec /usr/bin/unshare --pid --fork --kill-child --mount-proc \(binary) \"$@\"\n", to: wrapper.path)
        defer { try? FileManager.default.removeItem(at: wrapper) }
        let harness = try DaemonHarness(executable: wrapper)
        let config = try harness.write("scanbridge.yaml", Self.operatorsAreUsers)
        let daemon = try DaemonHarness.reusing(harness, arguments: ["--config", config])
        try await daemon.start()
        try openFolder(daemon)
        let hello = try await run(
            "scanbridge", ["call", "bridge.hello", "--socket", daemon.socketPath], prefix: Self.asNobodyInUsers)
        #expect(hello.status == 0, "\(hello.err)")
        #expect(hello.out.contains("\"operator\""), "\(hello.out)")
    }

    /// The harness folder must be searchable by the other user to reach the socket.
    private func openFolder(_ daemon: DaemonHarness) throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: daemon.directory.path)
    }
}
