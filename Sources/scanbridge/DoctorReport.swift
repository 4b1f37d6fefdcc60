import Foundation
import PCSCKit
import ScanBridgeCodes
import ScanBridgeModel

/// What `scanbridge doctor` found: the daemon, then what the drivers it runs need (pcscd and
/// the kernel's NFC modules for `pcsc`, udev rules and groups for scanners and cameras), its
/// database and its service, each with the problems it shows. Printed for a person, or as
/// JSON for a machine.
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

        /// The drivers the daemon runs (`bridge.hello`); none when it does not answer.
        var drivers: Set<String> { Set(hello["drivers"]?.arrayValue?.compactMap(\.stringValue) ?? []) }
    }

    var daemon: Daemon
    /// The daemon's process, when the kernel and /proc tell.
    var process: DaemonProcess?
    /// pcscd and the kernel's NFC modules; nil when the daemon runs no `pcsc` driver.
    var pcscd: PCSCProbe?
    var kernel: Kernel?
    /// nil when the daemon runs no scanner driver.
    var scanners: Scanners?
    /// nil when the doctor cannot tell which file the daemon uses.
    var database: Database?
    /// What systemd says of the service, or that there is none.
    var service: String

    /// Each thing that is wrong, as one sentence that says what to do.
    var problems: [String] {
        var problems: [String] = []
        if let failure = daemon.failure {
            problems.append(failure)
        }
        if let pcscd {
            if let failure = pcscd.failure {
                problems.append(
                    "pcscd does not answer on \(pcscd.socketPath) (\(failure)); start it (systemctl start pcscd.socket) or install it (apt-get install pcscd libccid)"
                )
            } else if pcscd.readers.isEmpty {
                problems.append("pcscd sees no reader; plug one in (a USB reader also needs libccid)")
            }
        }
        if let loaded = kernel?.loaded, !loaded.isEmpty {
            problems.append(
                "the kernel modules \(loaded.joined(separator: ", ")) are loaded and take ACR122U/SCL3711 readers from pcscd; "
                    + "blacklist them with udev/blacklist-pn533.conf (in /etc/modprobe.d), run modprobe -r \(loaded.joined(separator: " ")) and restart pcscd"
            )
        }
        problems += deviceProblems
        problems += databaseProblems
        problems += daemon.journalProblems
        problems += daemon.storeProblems
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

    /// The report for a person, without the verdict (`verdict` follows it).
    var body: String {
        var lines: [String] = []
        if daemon.failure == nil {
            let version = daemon.hello["version"]?.stringValue ?? "?"
            lines.append(
                row(
                    "daemon",
                    "scanbridged \(version) answers on \(daemon.socketPath); drivers: \(daemon.drivers.sorted().joined(separator: ", ")); \(count(daemon.devices.count, "device"))"
                ))
            if !daemon.devices.isEmpty { lines.append(indented(EventFormatter().table(daemon.devices))) }
            lines.append(row("role", "\(daemon.hello["role"]?.stringValue ?? "?") (what this user may do on the socket)"))
        } else {
            lines.append(row("daemon", "does not answer on \(daemon.socketPath); what its drivers need is not checked"))
        }
        if let pcscd {
            if pcscd.answers {
                lines.append(row("pcscd", "answers on \(pcscd.socketPath); \(count(pcscd.readers.count, "reader"))"))
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
                lines.append(row("pcscd", "does not answer on \(pcscd.socketPath) (\(pcscd.failure ?? ""))"))
            }
        }
        if let kernel {
            switch kernel.loaded {
            case nil: lines.append(row("kernel", "cannot read \(kernel.path); cannot tell whether pn533 modules are loaded"))
            case let loaded? where loaded.isEmpty:
                lines.append(row("kernel", "no \(PCSCKernelModules.conflicting.joined(separator: ", ")) module loaded"))
            case let loaded?:
                lines.append(
                    row("kernel", "loaded: \(loaded.joined(separator: ", ")); blacklist them with udev/blacklist-pn533.conf"))
            }
        }
        lines += deviceLines
        if daemon.failure == nil || database != nil { lines.append(databaseLine) }
        if let journal = daemon.journalLine { lines.append(row("journal", journal)) }
        if let store = daemon.storeLine { lines.append(row("store", store)) }
        lines.append(row("service", service))
        lines += metricsLines
        return lines.joined(separator: "\n")
    }

    /// "all good", or the problems, one a line.
    var verdict: String {
        let problems = self.problems
        return ([problems.isEmpty ? "all good" : count(problems.count, "problem") + ":"] + problems.map { "- " + $0 })
            .joined(separator: "\n")
    }

    /// The whole report for a person.
    var text: String { body + "\n\n" + verdict }

    var json: JSONValue {
        var daemon: [String: JSONValue] = [
            "socket": .string(self.daemon.socketPath), "answers": .bool(self.daemon.failure == nil),
            "hello": self.daemon.hello, "devices": self.daemon.devicesJSON,
        ]
        if let failure = self.daemon.failure { daemon["error"] = .string(failure) }
        if let process { daemon["pid"] = .int(Int64(process.pid)) }
        return .object([
            "ok": .bool(problems.isEmpty), "problems": .array(problems.map(JSONValue.string)),
            "role": self.daemon.hello["role"] ?? .null,
            "pcscd": pcscdJSON, "kernel": kernelJSON, "scanners": scannersJSON,
            "cameras": self.daemon.drivers.contains("v4l2") ? .object(["group": .string(Self.cameraGroup)]) : .null,
            "daemon": .object(daemon), "database": databaseJSON, "service": .string(service),
            "metrics": .object(["path": .string("/metrics"), "scrapeConfig": .string(Self.scrapeConfig)]),
        ])
    }

    private var pcscdJSON: JSONValue {
        guard let pcscd else { return .null }
        var object: [String: JSONValue] = [
            "socket": .string(pcscd.socketPath), "answers": .bool(pcscd.answers),
            "readers": .array(
                pcscd.readers.map { reader in
                    .object([
                        "name": .string(reader.name), "state": .array(reader.state.map(JSONValue.string)),
                        "atr": reader.atr.isEmpty ? .null : .string(Hex.encode(reader.atr)),
                    ])
                }),
        ]
        if let failure = pcscd.failure { object["error"] = .string(failure) }
        return .object(object)
    }

    private var kernelJSON: JSONValue {
        guard let kernel else { return .null }
        return .object([
            "modulesFile": .string(kernel.path),
            "nfcModules": kernel.loaded.map { .array($0.map(JSONValue.string)) } ?? .null,
        ])
    }

    /// A line of the report: its subject in a column of its own.
    func row(_ subject: String, _ text: String) -> String {
        subject.padding(toLength: 9, withPad: " ", startingAt: 0) + text
    }

    func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    private func indented(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
    }
}
