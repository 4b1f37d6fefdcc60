import Foundation
import ScanBridgeRPC
import ScanBridgeTesting
import Testing

/// The files that install ScanBridge as a system service (service/, packaging/install.sh):
/// the unit's hardening as systemd rates it, the units as systemd reads them, and the
/// default configuration as the daemon reads it.
@Suite("Service files", .heavy, .timeLimit(.minutes(5)))
struct ServiceFilesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let systemdAnalyze = "/usr/bin/systemd-analyze"

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: systemdAnalyze), "needs systemd-analyze"))
    func theServiceIsRatedOK() async throws {
        let unit = Self.root.appendingPathComponent("service/scanbridged.service").path
        let result = try await Spawned(command: [Self.systemdAnalyze, "security", "--offline=yes", unit]).finish()
        let level = try #require(
            result.out.firstMatch(of: /Overall exposure level for scanbridged.service: (\d+\.\d)/)?.1,
            "\(result.out)\(result.err)")
        #expect(try #require(Double(level)) <= 2.0, "systemd-analyze rates the unit \(level): \(result.out)")
    }

    /// What `make install PREFIX=/usr` puts where, and units systemd reads without a complaint.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: systemdAnalyze), "needs systemd-analyze"))
    func installedUnitsVerify() async throws {
        let harness = try DaemonHarness()
        let destination = harness.directory.appendingPathComponent("root").path
        let installed = try await Spawned(command: [
            "/usr/bin/env", "PREFIX=/usr", "DESTDIR=\(destination)", "BIN=\(DaemonHarness.productsDirectory.path)",
            "MAN_PAGES=no", Self.root.appendingPathComponent("packaging/install.sh").path,
        ]).finish()
        #expect(installed.status == 0, "\(installed.err)")
        let unitFolder = destination + "/lib/systemd/system"
        for file in [
            "/usr/bin/scanbridged", "/usr/bin/scanbridge", "/usr/share/scanbridge/web/index.html",
            "/lib/systemd/system/scanbridged.service", "/lib/systemd/system/scanbridged.socket",
            "/lib/systemd/system/scanbridged-http.socket", "/usr/lib/sysusers.d/scanbridge.conf",
            "/usr/lib/tmpfiles.d/scanbridge.conf", "/usr/lib/modules-load.d/scanbridge.conf",
            "/lib/udev/rules.d/70-scanbridge.rules",
            "/lib/modprobe.d/scanbridge-blacklist-pn533.conf", "/usr/share/polkit-1/rules.d/50-scanbridge-pcsc.rules",
            "/etc/scanbridge/scanbridge.yaml", "/usr/share/bash-completion/completions/scanbridge",
            "/usr/share/zsh/vendor-completions/_scanbridge", "/usr/share/fish/vendor_completions.d/scanbridge.fish",
        ] {
            #expect(FileManager.default.fileExists(atPath: destination + file), "\(file) is installed")
        }
        // The service names /usr/bin/scanbridged, installed under DESTDIR here.
        let service = try String(contentsOfFile: unitFolder + "/scanbridged.service", encoding: .utf8)
        #expect(service.contains("ExecStart=/usr/bin/scanbridged\n"))
        try service.replacingOccurrences(of: "ExecStart=/usr/bin/", with: "ExecStart=\(destination)/usr/bin/")
            .write(toFile: unitFolder + "/scanbridged.service", atomically: false, encoding: .utf8)
        let verified = try await Spawned(
            command: [Self.systemdAnalyze, "verify", "--man=no"]
                + ["scanbridged.service", "scanbridged.socket", "scanbridged-http.socket"].map { unitFolder + "/" + $0 }
        ).finish()
        #expect(verified.status == 0 && verified.err.isEmpty && verified.out.isEmpty, "\(verified.out)\(verified.err)")
    }

    /// The socket unit serves the path clients look for, and the units, sysusers.d and the
    /// default configuration name the same users and groups.
    @Test func theFilesAgree() throws {
        let read = { (name: String) in
            try String(contentsOf: Self.root.appendingPathComponent("service/" + name), encoding: .utf8)
        }
        let socket = try read("scanbridged.socket")
        #expect(socket.contains("ListenStream=\(SocketPath.system)\n"))
        #expect(socket.contains("SocketUser=scanbridge\n") && socket.contains("SocketGroup=scanbridge-users\n"))
        let service = try read("scanbridged.service")
        #expect(service.contains("User=scanbridge\n") && service.contains("Group=scanbridge\n"))
        #expect(service.contains("Environment=SCANBRIDGE_SOCKET=\(SocketPath.system)\n"))
        let sysusers = try read("scanbridge.sysusers")
        for group in ["scanbridge-devices", "scanbridge-users", "scanbridge-operator", "scanbridge-admin"] {
            #expect(sysusers.contains("g \(group) -"), "sysusers.d makes \(group)")
        }
        #expect(sysusers.contains("u scanbridge -"))
        #expect(try read("scanbridge.tmpfiles").contains("d /run/scanbridge 2750 scanbridge scanbridge-users -"))
        let config = try read("scanbridge.yaml")
        #expect(config.contains("socket_group: scanbridge-users\n"))
    }

    /// The default configuration is one the daemon starts with (its groups made ones this
    /// machine has: the package's are made by sysusers.d).
    @Test func theDefaultConfigurationStartsTheDaemon() async throws {
        let harness = try DaemonHarness()
        let text = try String(
            contentsOf: Self.root.appendingPathComponent("service/scanbridge.yaml"), encoding: .utf8)
        let config = try harness.write(
            "scanbridge.yaml",
            text.replacingOccurrences(of: "scanbridge-users", with: "users")
                .replacingOccurrences(of: "scanbridge-operator", with: "users")
                .replacingOccurrences(of: "scanbridge-admin", with: "root"))
        let daemon = try DaemonHarness.reusing(harness, arguments: ["--config", config, "--drivers", "mock"])
        try await daemon.start()
        #expect(try await daemon.stop() == 0)
    }
}
