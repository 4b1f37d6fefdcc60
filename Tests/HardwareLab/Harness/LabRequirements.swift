import Foundation
import ScanBridgeTesting

/// What the lab needs from the host, checked before any guest boots. When something is
/// missing the lab suites are skipped with this exact reason, never counted as passed (and
/// under CI=true, run to fail).
enum LabRequirements {
    /// Nil when the lab can run; otherwise why not.
    static let missing: String? = {
        if ProcessInfo.processInfo.environment["SCANBRIDGE_LAB"] == "off" {
            return "SCANBRIDGE_LAB=off asks to leave the hardware lab out"
        }
        var missing: [String] = []
        if (try? qemuPath()) == nil { missing.append("qemu-system-x86_64 (Debian package qemu-system-x86)") }
        if !["/bin/busybox", "/usr/bin/busybox"].contains(where: FileManager.default.isExecutableFile(atPath:)) {
            missing.append("busybox (Debian package busybox-static)")
        }
        for (program, package) in [("depmod", "kmod"), ("apt-get", "apt"), ("apt-cache", "apt"), ("dpkg-deb", "dpkg")]
        where HostCommand.which(program) == nil {
            missing.append("\(program) (Debian package \(package))")
        }
        guard missing.isEmpty else {
            return "the hardware lab needs \(missing.joined(separator: ", ")); `scripts/deps.sh test` installs them on Debian"
        }
        for product in ["scanbridged", "scanbridge"] {
            let path = DaemonHarness.productsDirectory.appendingPathComponent(product).path
            if !FileManager.default.isExecutableFile(atPath: path) {
                return "no \(product) binary at \(path); run `swift build` first"
            }
        }
        return nil
    }()

    /// Under CI=true the lab runs even where it cannot, and fails naming what is missing,
    /// unless SCANBRIDGE_LAB=off leaves it out on purpose.
    static let mustRun = TestEnvironment.isCI && ProcessInfo.processInfo.environment["SCANBRIDGE_LAB"] != "off"

    static func qemuPath() throws -> String {
        guard let path = HostCommand.which("qemu-system-x86_64") else {
            throw LabFailure(step: "find QEMU", reason: "no qemu-system-x86_64 on PATH")
        }
        return path
    }
}
