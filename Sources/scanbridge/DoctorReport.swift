import PCSCKit
import ScanBridgeCodes
import ScanBridgeModel

/// What `scanbridge doctor` found: pcscd, the kernel's NFC modules and the daemon, each with
/// the problems it shows. Printed for a person, or as JSON for a machine.
struct DoctorReport {
    /// The kernel part: the conflicting modules loaded, or nil when `/proc/modules` could not be read.
    struct Kernel {
        var path: String
        var loaded: [String]?
    }

    /// The daemon part: what `bridge.hello` and `devices.list` answered, or why nothing did.
    struct Daemon {
        var socketPath: String
        var failure: String?
        var hello: JSONValue = .null
        var devices: [Device] = []
        var devicesJSON: JSONValue = .array([])
    }

    var pcscd: PCSCProbe
    var kernel: Kernel
    var daemon: Daemon

    /// Each thing that is wrong, as one sentence that says what to do.
    var problems: [String] {
        var problems: [String] = []
        if let failure = pcscd.failure {
            problems.append(
                "pcscd does not answer on \(pcscd.socketPath) (\(failure)); start it (systemctl start pcscd.socket) or install it (apt-get install pcscd libccid)"
            )
        } else if pcscd.readers.isEmpty {
            problems.append("pcscd sees no reader; plug one in (a USB reader also needs libccid)")
        }
        if let loaded = kernel.loaded, !loaded.isEmpty {
            problems.append(
                "the kernel modules \(loaded.joined(separator: ", ")) are loaded and take ACR122U/SCL3711 readers from pcscd; "
                    + "blacklist them with udev/blacklist-pn533.conf (in /etc/modprobe.d), run modprobe -r \(loaded.joined(separator: " ")) and restart pcscd"
            )
        }
        if let failure = daemon.failure {
            problems.append(failure)
        }
        problems += daemon.journalProblems
        for device in daemon.devices where device.state == .error || device.state == .busy {
            problems.append("\(device.id) is \(device.state.rawValue)\(device.error.map { ": \($0)" } ?? "")")
        }
        for device in daemon.devices {
            guard let hint = device.hint else { continue }
            problems.append(
                "\(device.id) \(hint) (for scanners discovery finds, `layout:` under `scanners:` in the config; "
                    + "for one named with --device, `,layout=…` after its path), then restart scanbridged")
        }
        return problems
    }

    var text: String {
        var lines: [String] = []
        if pcscd.answers {
            lines.append("pcscd   answers on \(pcscd.socketPath); \(count(pcscd.readers.count, "reader"))")
            if !pcscd.readers.isEmpty {
                lines.append(
                    indented(
                        TextTable.render(
                            header: ["READER", "STATE"],
                            rows: pcscd.readers.map { reader in
                                [reader.name, reader.state.joined(separator: ", ")]
                            })))
            }
        } else {
            lines.append("pcscd   does not answer on \(pcscd.socketPath) (\(pcscd.failure ?? ""))")
        }
        switch kernel.loaded {
        case nil: lines.append("kernel  cannot read \(kernel.path); cannot tell whether pn533 modules are loaded")
        case let loaded? where loaded.isEmpty:
            lines.append("kernel  no \(PCSCKernelModules.conflicting.joined(separator: ", ")) module loaded")
        case let loaded?:
            lines.append("kernel  loaded: \(loaded.joined(separator: ", ")); blacklist them with udev/blacklist-pn533.conf")
        }
        if daemon.failure == nil {
            let version = daemon.hello["version"]?.stringValue ?? "?"
            let drivers = daemon.hello["drivers"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ", ") ?? ""
            lines.append(
                "daemon  scanbridged \(version) answers on \(daemon.socketPath); drivers: \(drivers); \(count(daemon.devices.count, "device"))"
            )
            if !daemon.devices.isEmpty { lines.append(indented(EventFormatter().table(daemon.devices))) }
            if let journal = daemon.journalLine { lines.append(journal) }
        } else {
            lines.append("daemon  does not answer on \(daemon.socketPath)")
        }
        lines += metricsLines
        let problems = self.problems
        lines.append("")
        lines.append(problems.isEmpty ? "all good" : count(problems.count, "problem") + ":")
        lines += problems.map { "- " + $0 }
        return lines.joined(separator: "\n")
    }

    var json: JSONValue {
        var pcscd: [String: JSONValue] = [
            "socket": .string(self.pcscd.socketPath), "answers": .bool(self.pcscd.answers),
            "readers": .array(
                self.pcscd.readers.map { reader in
                    .object([
                        "name": .string(reader.name), "state": .array(reader.state.map(JSONValue.string)),
                        "atr": reader.atr.isEmpty ? .null : .string(Hex.encode(reader.atr)),
                    ])
                }),
        ]
        if let failure = self.pcscd.failure { pcscd["error"] = .string(failure) }
        var daemon: [String: JSONValue] = [
            "socket": .string(self.daemon.socketPath), "answers": .bool(self.daemon.failure == nil),
            "hello": self.daemon.hello, "devices": self.daemon.devicesJSON,
        ]
        if let failure = self.daemon.failure { daemon["error"] = .string(failure) }
        return .object([
            "ok": .bool(problems.isEmpty), "problems": .array(problems.map(JSONValue.string)),
            "pcscd": .object(pcscd),
            "kernel": .object([
                "modulesFile": .string(kernel.path),
                "nfcModules": kernel.loaded.map { .array($0.map(JSONValue.string)) } ?? .null,
            ]),
            "daemon": .object(daemon),
            "metrics": .object(["path": .string("/metrics"), "scrapeConfig": .string(Self.scrapeConfig)]),
        ])
    }

    private func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    private func indented(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
    }
}
