import Foundation
import ScanBridgeModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What scanners and cameras need from the machine: the udev rules, the device groups the
/// daemon's user joins, no scanner left without a kernel driver by a vendor USB mode that the
/// `usb` driver is not told to read, and no scanner another program has claimed.
extension DoctorReport {
    /// The drivers that read discovered USB scanners.
    static let scannerDrivers: Set<String> = ["evdev", "hidpos", "serial", "usb"]
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
        /// USB devices of those makers with an interface a program has claimed through usbfs.
        var claimed: [USBDevice] = []
        /// What `devices.candidates` answered: the candidates not read; nil with `candidatesFailure`.
        var candidatesNotRead: [JSONValue]?
        var candidatesFailure: String?
    }

    /// A USB device as sysfs shows it, and the interface of note (the vendor-specific one
    /// without a driver, or the one claimed).
    struct USBDevice {
        var usb: String
        var name: String
        var path: String
        var interface: Int

        var json: JSONValue {
            .object(["usb": .string(usb), "name": .string(name), "sysfs": .string(path), "interface": .int(Int64(interface))])
        }
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
        let devices = usbDevices(usbFolder: usbFolder, vendors: scanners.rulesVendors)
        scanners.withoutDriver = devices.withoutDriver
        scanners.claimed = devices.claimed
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

    /// The devices of `vendors` in `usbFolder` that have interfaces and none bound to a driver
    /// (a scanner switched to a vendor mode no kernel driver speaks), and those with an
    /// interface a program holds through usbfs.
    static func usbDevices(usbFolder: String, vendors: Set<String>) -> (withoutDriver: [USBDevice], claimed: [USBDevice]) {
        let files = FileManager.default
        let entries = ((try? files.contentsOfDirectory(atPath: usbFolder)) ?? []).sorted()
        func read(_ path: String) -> String? {
            (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var withoutDriver: [USBDevice] = []
        var claimed: [USBDevice] = []
        for entry in entries where !entry.contains(":") {
            let folder = usbFolder + "/" + entry
            guard let vendor = read(folder + "/idVendor")?.lowercased(), vendors.contains(vendor) else { continue }
            let interfaces = entries.filter { $0.hasPrefix(entry + ":") }.map { name in
                let path = usbFolder + "/" + name
                let number = read(path + "/bInterfaceNumber").flatMap { Int($0, radix: 16) } ?? 0
                let driver = (try? files.destinationOfSymbolicLink(atPath: path + "/driver")).map {
                    ($0 as NSString).lastPathComponent
                }
                return (number: number, vendorSpecific: read(path + "/bInterfaceClass") == "ff", driver: driver)
            }
            guard !interfaces.isEmpty else { continue }
            let product = read(folder + "/idProduct") ?? "????"
            let name = [read(folder + "/manufacturer"), read(folder + "/product")].compactMap { $0 }.joined(separator: " ")
            func device(_ interface: Int) -> USBDevice {
                USBDevice(
                    usb: vendor + ":" + product, name: name.isEmpty ? "USB device" : name, path: entry, interface: interface)
            }
            if interfaces.allSatisfy({ $0.driver == nil }) {
                withoutDriver.append(device((interfaces.first(where: \.vendorSpecific) ?? interfaces[0]).number))
            } else if let held = interfaces.first(where: { $0.driver == "usbfs" }) {
                claimed.append(device(held.number))
            }
        }
        return (withoutDriver, claimed)
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
                        + "(docs/devices.md, Permissions and udev rules)")
            }
            problems += groupProblems(Self.deviceGroup, for: "scanners", create: true)
            for device in scanners.withoutDriver {
                problems.append(
                    "\(device.name) (USB \(device.usb), \(device.path)) has no kernel driver on any interface: it is in a "
                        + "vendor USB mode; read it with the usb driver (--device usb:\(device.usb),interface=\(device.interface)), "
                        + "or switch it to USB keyboard (HID), HID POS or USB serial (CDC-ACM) with its maker's "
                        + "programming barcode, then replug it")
            }
            // The daemon's own usb driver holds what it reads through usbfs too.
            let readByDaemon = Set(
                daemon.devices.filter { $0.driver == "usb" && $0.state == .ready }.compactMap { device in
                    device.vendorId.flatMap { vendor in device.productId.map { vendor + ":" + $0 } }
                })
            for device in scanners.claimed where !readByDaemon.contains(device.usb) {
                problems.append(
                    "interface \(device.interface) of \(device.name) (USB \(device.usb), \(device.path)) is claimed by another "
                        + "program through usbfs, so no driver of the daemon can read it; stop that program "
                        + "(fuser -v /dev/bus/usb/*/* names it)")
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
            if !scanners.claimed.isEmpty { line += "; \(count(scanners.claimed.count, "scanner")) claimed through usbfs" }
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
            "withoutDriver": .array(scanners.withoutDriver.map(\.json)),
            "claimed": .array(scanners.claimed.map(\.json)),
        ]
        if let notRead = scanners.candidatesNotRead { object["candidatesNotRead"] = .array(notRead) }
        if let failure = scanners.candidatesFailure { object["candidatesError"] = .string(failure) }
        return .object(object)
    }
}
