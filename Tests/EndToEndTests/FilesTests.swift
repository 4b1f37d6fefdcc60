import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// The daemon's files and folders (docs/configuration.md "Files and paths"): what it creates is
/// its own, and a folder another user could write in is refused by the daemon and the CLI.
@Suite("Files and folders", .heavy, .timeLimit(.minutes(5)))
struct FilesTests {
    @Test func whatTheDaemonCreatesIsItsUsersAlone() async throws {
        let harness = try DaemonHarness()
        let database = harness.directory.appendingPathComponent("data/scanbridge.sqlite").path
        let socket = harness.directory.appendingPathComponent("run/scanbridge.sock").path
        let daemon = try DaemonHarness.reusing(
            harness, arguments: ["--mock", "barcode:till-1", "--database", database, "--socket", socket])
        try await daemon.start()
        #expect(try mode(of: harness.directory.appendingPathComponent("data").path) == 0o700)
        #expect(try mode(of: database) == 0o600, "the umask is 0077")
        #expect(try mode(of: harness.directory.appendingPathComponent("run").path) == 0o750)
        #expect(try mode(of: socket) == 0o660)
    }

    /// Run as a service with no path given, the daemon puts its socket and database in the
    /// folders systemd names, and reads its configuration from the one systemd names too,
    /// unless another user could have written it.
    @Test func aServiceFindsItsFoldersInItsEnvironment() async throws {
        let harness = try DaemonHarness()
        let root = harness.directory
        for folder in ["run", "state", "etc"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        let config = root.appendingPathComponent("etc/scanbridge.yaml").path
        try "mock:\n  - kind: barcode\n    id: till-9\n".write(toFile: config, atomically: true, encoding: .utf8)
        let service = [
            "/usr/bin/env", "-u", "SCANBRIDGE_SOCKET", "-u", "NOTIFY_SOCKET", "RUNTIME_DIRECTORY=\(root.path)/run",
            "STATE_DIRECTORY=\(root.path)/state", "CONFIGURATION_DIRECTORY=\(root.path)/etc",
        ]
        let daemon = try Spawned("scanbridged", ["--drivers", "mock"], prefix: service)
        try await waitUntil("the daemon to be ready", timeout: .seconds(20)) { daemon.errors.contains("ready") }
        let client = try await ScanBridgeClient.connect(socketPath: root.path + "/run/scanbridge.sock")
        #expect(try await client.devices().map(\.id) == ["mock:till-9"], "the configuration's mock device")
        await client.close()
        #expect(FileManager.default.fileExists(atPath: root.path + "/state/scanbridge.sqlite"))
        daemon.killNow()

        #expect(chmod(config, 0o666) == 0)
        let refused = try Spawned("scanbridged", ["--drivers", "mock"], prefix: service)
        defer { refused.killNow() }
        try await waitUntil("the daemon to refuse the configuration", timeout: .seconds(20)) {
            refused.errors.contains("could be changed by another user")
        }
    }

    /// Needs root to give the folders a group the daemon is not in.
    @Test(.enabled(if: getuid() == 0, "giving files a group needs root"))
    func theSocketGroupGetsTheFoldersAndTheSocket() async throws {
        let harness = try DaemonHarness()
        let config = try harness.write("scanbridge.yaml", "socket_group: nogroup\n")
        let database = harness.directory.appendingPathComponent("data/scanbridge.sqlite").path
        let socket = harness.directory.appendingPathComponent("run/scanbridge.sock").path
        let daemon = try DaemonHarness.reusing(
            harness, arguments: ["--config", config, "--database", database, "--socket", socket])
        try await daemon.start()
        let nogroup = UInt32(65534)
        #expect(try owner(of: harness.directory.appendingPathComponent("data").path) == (0o750, nogroup))
        #expect(try owner(of: harness.directory.appendingPathComponent("run").path) == (0o2750, nogroup))
        #expect(try owner(of: socket) == (0o660, nogroup))
    }

    /// A daemon that is not root may not give its files a group of its own choosing: the
    /// socket takes socket_group from the folder the daemon made for it (setgid).
    @Test(.enabled(if: AnotherUser.unavailableReason == nil, Comment(rawValue: AnotherUser.unavailableReason ?? "")))
    func aDaemonNotRunAsRootGivesTheSocketItsGroupThroughTheFolder() async throws {
        let harness = try DaemonHarness()
        #expect(chown(harness.directory.path, 65534, 65534) == 0)
        let config = try harness.write("scanbridge.yaml", "socket_group: users\n")
        let folder = harness.directory.appendingPathComponent("run").path
        let daemon = try Spawned(
            "scanbridged",
            [
                "--socket", folder + "/scanbridge.sock", "--config", config, "--drivers", "mock",
                "--database", harness.directory.appendingPathComponent("data/scanbridge.sqlite").path,
            ],
            prefix: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--groups=100"])
        try await waitUntil("the daemon to be ready", timeout: .seconds(20)) { daemon.errors.contains("ready") }
        #expect(try owner(of: folder) == (0o2750, 100))
        #expect(try owner(of: folder + "/scanbridge.sock") == (0o660, 100))
        daemon.killNow()
    }

    @Test(.enabled(if: AnotherUser.unavailableReason == nil, Comment(rawValue: AnotherUser.unavailableReason ?? "")))
    func aFolderThatCannotGiveTheSocketItsGroupIsAClearError() async throws {
        let harness = try DaemonHarness()
        let folder = harness.directory.appendingPathComponent("run").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        #expect(chown(harness.directory.path, 65534, 65534) == 0 && chown(folder, 65534, 65534) == 0)
        let config = try harness.write("scanbridge.yaml", "socket_group: users\n")
        let result = try await Spawned(
            "scanbridged",
            [
                "--socket", folder + "/scanbridge.sock", "--config", config, "--drivers", "mock",
                "--database", harness.directory.appendingPathComponent("scanbridge.sqlite").path,
            ],
            prefix: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--groups=100"]
        ).finish(timeout: .seconds(20))
        #expect(result.status == 1)
        #expect(result.err.contains("would have group 65534, not socket_group (100)"), "\(result.err)")
        #expect(result.err.contains("`chgrp 100 \(folder) && chmod g+s \(folder)`"), "\(result.err)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/scanbridge.sock"))
    }

    @Test(arguments: [
        ("socket", 0o777 as mode_t, nil as UInt32?, "is writable by every user (mode 0777)", "chmod o-w"),
        ("database", 0o777, nil, "is writable by every user (mode 0777)", "chmod o-w"),
        ("socket", 0o770, 100, "is writable by group 100, which is not this daemon's group", "chmod g-w"),
        ("database", 0o770, 100, "is writable by group 100, which is not this daemon's group", "chmod g-w"),
    ])
    func aFolderOthersMayWriteInIsRefused(
        what: String, mode: mode_t, group: UInt32?, reason: String, fix: String
    ) async throws {
        let harness = try DaemonHarness()
        let folder = harness.directory.appendingPathComponent("shared").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        if let group { #expect(chown(folder, UInt32.max, group) == 0) }
        #expect(chmod(folder, mode) == 0)
        let file = what == "socket" ? "scanbridge.sock" : "scanbridge.sqlite"
        let daemon = try DaemonHarness.reusing(harness, arguments: ["--\(what)", folder + "/" + file])
        await #expect(throws: DaemonHarness.Failure.self) { try await daemon.start() }
        #expect(daemon.log.contains("the \(what) folder \(folder) \(reason)"), "\(daemon.log)")
        #expect(daemon.log.contains("`\(fix) \(folder)`"), "\(daemon.log)")
    }

    @Test(.enabled(if: getuid() == 0, "giving a folder to another user needs root"))
    func aSocketFolderOfAnotherUserIsRefused() async throws {
        let harness = try DaemonHarness()
        let folder = harness.directory.appendingPathComponent("theirs").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        #expect(chown(folder, 65534, 65534) == 0)
        let daemon = try DaemonHarness.reusing(harness, arguments: ["--socket", folder + "/scanbridge.sock"])
        await #expect(throws: DaemonHarness.Failure.self) { try await daemon.start() }
        #expect(daemon.log.contains("the socket folder \(folder) belongs to uid 65534"), "\(daemon.log)")
    }

    @Test func theClientRefusesASocketInAFolderEveryoneMayWriteIn() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        #expect(chmod(daemon.directory.path, 0o777) == 0)
        let devices = try await run("scanbridge", ["devices", "--socket", daemon.socketPath])
        #expect(devices.status == 2, "no daemon it trusts can be reached")
        #expect(devices.err.contains("refusing to connect to \(daemon.socketPath)"), "\(devices.err)")
        #expect(devices.err.contains("`chmod o-w \(daemon.directory.path)`"), "\(devices.err)")
        await #expect {
            _ = try await ScanBridgeClient.connect(socketPath: daemon.socketPath)
        } throws: { ($0 as? ClientError)?.code == .untrustedSocket }
    }

    @Test func aSocketPathTooLongIsAClearError() async throws {
        let harness = try DaemonHarness()
        let path = harness.directory.appendingPathComponent(String(repeating: "s", count: 100) + ".sock").path
        let daemon = try DaemonHarness.reusing(harness, arguments: ["--socket", path])
        await #expect(throws: DaemonHarness.Failure.self) { try await daemon.start() }
        #expect(daemon.log.contains("is too long for a Unix socket (at most 107 bytes)"), "\(daemon.log)")
    }

    @Test(.enabled(if: AnotherUser.unavailableReason == nil, Comment(rawValue: AnotherUser.unavailableReason ?? "")))
    func aDaemonWithNoSocketPathSaysWhatToSet() async throws {
        let result = try await run(
            "scanbridged", [],
            prefix: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/env", "-i"])
        #expect(result.status == 2)
        #expect(
            result.err.contains("pass --socket PATH, or set SCANBRIDGE_SOCKET, RUNTIME_DIRECTORY or XDG_RUNTIME_DIR"),
            "\(result.err)")
    }

    private func mode(of path: String) throws -> mode_t { try owner(of: path).mode }

    private func owner(of path: String) throws -> (mode: mode_t, group: UInt32) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path]) }
        return (info.st_mode & 0o7777, info.st_gid)
    }
}
