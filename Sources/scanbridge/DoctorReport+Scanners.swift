import Foundation
import ScanBridgeModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What scanners and cameras need from the machine: the udev rules, the device groups the
/// daemon's user joins, and no scanner left without a kernel driver by a vendor USB mode.
extension DoctorReport {
    /// The drivers that read discovered USB scanners.
    static let scannerDrivers: Set<String> = ["evdev", "hidpos", "serial"]
    /// The group `udev/70-scanbridge.rules` gives scanners' nodes to, and the one for cameras.
    static let deviceGroup = "scanbridge-devices"
    static let cameraGroup = "video"
    /// Where udev reads rules from, first wins.
    static let udevRuleFolders = ["/etc/udev/rules.d", "/run/udev/rules.d", "/usr/lib/udev/rules.d", "/lib/udev/rules.d"]

    struct Scanners {
        /// The folders looked in for it.
        var ruleFolders: [String]
        /// The installed ScanBridge rules file; nil when none is.
        var rulesFile: String?
        /// The USB vendor ids (`0c2e`) its rules take for scanner makers.
        var rulesVendors: Set<String> = []
        /// USB devices of those makers none of whose interfaces has a kernel driver.
        var withoutDriver: [USBDevice] = []
        /// What `devices.candidates` answered: the candidates not read; nil with `candidatesFailure`.
        var candidatesNotRead: [JSONValue]?
        var candidatesFailure: String?
    }

    /// A USB device as sysfs shows it.
    struct USBDevice {
        var usb: String
        var name: String
        var path: String
    }

    /// Reads the rules in `ruleFolders` and the devices in `usbFolder` (sysfs's
    /// `/sys/bus/usb/devices`). The scanner makers are those the installed rules name, which an
    /// operator may have added to. Blocks.
    static func scanners(ruleFolders: [String], usbFolder: String) -> Scanners {
        var scanners = Scanners(ruleFolders: ruleFolders)
        let files = FileManager.default
        for folder in ruleFolders {
            let names = ((try? files.contentsOfDirectory(atPath: folder)) ?? []).sorted()
            guard let name = names.first(where: { $0.contains("scanbridge") && $0.hasSuffix(".rules") }) else { continue }
            scanners.rulesFile = folder + "/" + name
            break
        }
        if let file = scanners.rulesFile, let text = try? String(contentsOfFile: file, encoding: .utf8) {
            scanners.rulesVendors = ruleVendors(text)
        }
        scanners.withoutDriver = devicesWithoutDriver(usbFolder: usbFolder, vendors: scanners.rulesVendors)
        return scanners
    }

    /// The vendor ids in `ATTRS{idVendor}=="0c2e|0536"` matches of a rules file's lines.
    static func ruleVendors(_ text: String) -> Set<String> {
        var vendors: Set<String> = []
        let key = "ATTRS{idVendor}==\""
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            var rest = Substring(line)
            while let start = rest.range(of: key) {
                rest = rest[start.upperBound...]
                guard let end = rest.firstIndex(of: "\"") else { break }
                for id in rest[..<end].split(separator: "|") { vendors.insert(id.lowercased()) }
                rest = rest[end...]
            }
        }
        return vendors
    }

    /// The devices of `vendors` in `usbFolder` that have interfaces and none bound to a driver:
    /// a scanner switched to a vendor mode no kernel driver speaks.
    static func devicesWithoutDriver(usbFolder: String, vendors: Set<String>) -> [USBDevice] {
        let files = FileManager.default
        let entries = ((try? files.contentsOfDirectory(atPath: usbFolder)) ?? []).sorted()
        func read(_ path: String) -> String? {
            (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var found: [USBDevice] = []
        for entry in entries where !entry.contains(":") {
            let folder = usbFolder + "/" + entry
            guard let vendor = read(folder + "/idVendor")?.lowercased(), vendors.contains(vendor) else { continue }
            let interfaces = entries.filter { $0.hasPrefix(entry + ":") }
            guard !interfaces.isEmpty,
                !interfaces.contains(where: { files.fileExists(atPath: usbFolder + "/" + $0 + "/driver") })
            else { continue }
            let product = read(folder + "/idProduct") ?? "????"
            let name = [read(folder + "/manufacturer"), read(folder + "/product")].compactMap { $0 }.joined(separator: " ")
            found.append(USBDevice(usb: vendor + ":" + product, name: name.isEmpty ? "USB device" : name, path: entry))
        }
        return found
    }

    /// The gid of the group named `name`; nil when there is no such group.
    static func groupID(_ name: String) -> UInt32? {
        guard let entry = getgrnam(name) else { return nil }
        return entry.pointee.gr_gid
    }

    /// Each thing scanners or cameras lack, as a sentence that says what to do.
    var deviceProblems: [String] {
        var problems: [String] = []
        let drivers = daemon.drivers
        if let scanners {
            if scanners.rulesFile == nil {
                problems.append(
                    "no ScanBridge udev rules are installed (looked in \(scanners.ruleFolders.joined(separator: ", "))): "
                        + "install udev/70-scanbridge.rules in /etc/udev/rules.d and run udevadm control --reload "
                        + "(docs/operations.md, Permissions and udev rules)")
            }
            problems += groupProblems(Self.deviceGroup, for: "scanners", create: true)
            for device in scanners.withoutDriver {
                problems.append(
                    "\(device.name) (USB \(device.usb), \(device.path)) has no kernel driver on any interface: it is in a "
                        + "vendor USB mode; switch it to USB keyboard (HID), HID POS or USB serial (CDC-ACM) with its "
                        + "maker's programming barcode, then replug it")
            }
        }
        if drivers.contains("v4l2") {
            problems += groupProblems(Self.cameraGroup, for: "cameras", create: false)
        }
        return problems
    }

    /// Whether the daemon's user is in `group` (root needs no group).
    private func groupProblems(_ group: String, for what: String, create: Bool) -> [String] {
        guard let process, process.uid != 0 else { return [] }
        guard let gid = Self.groupID(group) else {
            return [
                "there is no group \(group), which \(what) need"
                    + (create ? ": groupadd --system \(group), then add the daemon's user to it" : "")
            ]
        }
        guard !process.isMember(of: gid) else { return [] }
        let user = DaemonProcess.userName(process.uid)
        return [
            "the daemon's user \(user) is not in the group \(group), which \(what) need: usermod -aG \(group) \(user), then restart scanbridged"
        ]
    }

    /// The report's lines about scanners and cameras.
    var deviceLines: [String] {
        var lines: [String] = []
        if let scanners {
            var line = scanners.rulesFile.map { "udev rules \($0)" } ?? "no udev rules installed"
            if let process, process.uid != 0 {
                let member = Self.groupID(Self.deviceGroup).map(process.isMember(of:)) ?? false
                line += "; the daemon is \(member ? "" : "not ")in \(Self.deviceGroup)"
            }
            if !scanners.withoutDriver.isEmpty { line += "; \(count(scanners.withoutDriver.count, "scanner")) without a driver" }
            lines.append(row("scanners", line))
            if let notRead = scanners.candidatesNotRead, !notRead.isEmpty {
                lines.append(
                    "  not read: "
                        + notRead.map { "\($0["id"]?.stringValue ?? "?") (\($0["reason"]?.stringValue ?? "?"))" }
                        .joined(separator: ", ")
                        + "; claim a scanner among them with `scanbridge devices claim ID`")
            } else if let failure = scanners.candidatesFailure {
                lines.append("  candidates not listed: \(failure)")
            }
        }
        if daemon.drivers.contains("v4l2") {
            var line = "v4l2 reads cameras"
            if let process, process.uid != 0 {
                let member = Self.groupID(Self.cameraGroup).map(process.isMember(of:)) ?? false
                line += "; the daemon is \(member ? "" : "not ")in \(Self.cameraGroup)"
            }
            lines.append(row("cameras", line))
        }
        return lines
    }

    var scannersJSON: JSONValue {
        guard let scanners else { return .null }
        var object: [String: JSONValue] = [
            "udevRules": scanners.rulesFile.map(JSONValue.string) ?? .null,
            "withoutDriver": .array(
                scanners.withoutDriver.map {
                    .object(["usb": .string($0.usb), "name": .string($0.name), "sysfs": .string($0.path)])
                }),
        ]
        if let notRead = scanners.candidatesNotRead { object["candidatesNotRead"] = .array(notRead) }
        if let failure = scanners.candidatesFailure { object["candidatesError"] = .string(failure) }
        return .object(object)
    }
}
