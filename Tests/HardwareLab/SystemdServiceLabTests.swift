import Foundation
import ScanBridgeModel
import ScanBridgeTesting
import Synchronization
import Testing

extension LabSuites.ServiceLane {
    /// The Debian package installed for real: a guest with systemd as PID 1, the package of
    /// the debug binaries built on the host and installed with `dpkg -i` in the guest's
    /// overlay (the host is never changed), then the socket, the hardened unit, udev's rule,
    /// the restart after a crash, the watchdog and journald's priorities, as a counter box
    /// would have them.
    @Suite(
        "Service under systemd", .serialized,
        .sharedGuest(GuestConfiguration(devices: [.usbController], memoryMB: 1024, systemd: true)), .timeLimit(.minutes(15)))
    struct SystemdServiceLabTests {
        static let client = "labclient"
        /// `scanbridge` as a member of scanbridge-users, on the installed socket.
        static let asClient = "runuser -u \(client) -- /usr/bin/scanbridge"

        @Test func socketStartsTheServiceAndAHotPluggedWedgeScannerIsRead() async throws {
            let guest = try await Self.installedGuest()
            let before = try await guest.run(
                "the socket listens, the service does not run",
                """
                systemctl stop scanbridged.service 2>/dev/null  # it warns that the socket can start it again
                systemctl is-active scanbridged.socket; systemctl is-active scanbridged.service || true
                stat -c '%U %G %a' /run/scanbridge/scanbridge.sock
                """)
            #expect(before == "active\ninactive\nscanbridge scanbridge-users 660\n")

            let hello = try await guest.run(
                "a member of scanbridge-users connects", "\(Self.asClient) call bridge.hello '{}'", timeout: .seconds(120))
            #expect(try JSONDecoder().decode(JSONValue.self, from: Data(hello.utf8))["role"] == "reader", "\(hello)")
            let after = try await guest.run(
                "the first connection started the service",
                """
                systemctl is-active scanbridged.service
                ps -o user= -p "$(systemctl show -p MainPID --value scanbridged.service)"
                """)
            #expect(after == "active\nscanbridge\n")

            // The client watches before the scanner comes: `--since 0` replays the journal too.
            try await guest.run(
                "the client watches",
                "nohup \(Self.asClient) watch --json --since 0 >/lab/wedge-events.ndjson 2>/lab/wedge-watch.log &")
            try Data(Self.keyboardReports("4006381333931\n")).write(to: guest.share.appendingPathComponent("wedge.reports"))
            try Data(Self.bootKeyboardDescriptor).write(to: guest.share.appendingPathComponent("wedge.desc"))
            try await guest.run("a USB keyboard-wedge scanner with Honeywell's vendor id is plugged in", Self.wedgeGadget)
            let groups = try await guest.run(
                "udev gives its event node to scanbridge-devices",
                """
                i=0; until [ -e \(Self.wedgeNode) ]; do i=$((i + 1)); [ $i -le 300 ] || { echo "no \(Self.wedgeNode)"; exit 1; }; nap 0.1; done
                udevadm settle
                stat -L -c '%G %a' \(Self.wedgeNode)
                """)
            #expect(groups == "scanbridge-devices 660\n")
            try await guest.waitUntil(
                "the daemon lists the wedge scanner",
                "\(Self.asClient) call devices.list '{}' | grep -q '\"evdev:'", timeout: .seconds(90))
            try await guest.run("the scanner types an EAN-13 and Enter", Self.wedgeTypes("wedge.reports"))
            let scan = try await waitFor("the client's scan event", timeout: .seconds(60)) { () -> JSONValue? in
                Self.events(guest.sharedFile("wedge-events.ndjson")).first { $0["text"] == "4006381333931" }
            }
            #expect(scan["symbology"] == "ean-13" && scan["device"]?.stringValue?.hasPrefix("evdev:") == true, "\(scan)")
            // Its hidraw node too is the daemon's to open (the HID POS driver reads its report
            // descriptor): the unit's device policy knows hidraw, though hid came after the service.
            let listed = try JSONDecoder().decode(
                JSONValue.self, from: Data(try await guest.run("devices.list", "\(Self.asClient) call devices.list '{}'").utf8))
            let failing = (listed["devices"]?.arrayValue ?? []).filter { $0["state"] == "error" }
            #expect(failing.isEmpty, "devices in error: \(failing)")
        }

        @Test func aCrashedOrStuckDaemonIsRestartedAndLosesNoAcknowledgedEvent() async throws {
            let guest = try await Self.installedGuest()
            try await guest.run(
                "a drop-in: a mock till and a short watchdog",
                """
                mkdir -p /etc/systemd/system/scanbridged.service.d
                printf '%s\\n' '[Service]' 'ExecStart=' 'ExecStart=/usr/bin/scanbridged --mock barcode:till-1' \
                    'WatchdogSec=4s' >/etc/systemd/system/scanbridged.service.d/lab.conf
                systemctl daemon-reload && systemctl restart scanbridged.service
                """, timeout: .seconds(120))
            try Self.inject.write(to: guest.share.appendingPathComponent("inject.py"), atomically: false, encoding: .utf8)
            try await guest.run(
                "inject 20 scans, each acknowledged", "python3 /lab/inject.py 20 >/lab/acks.ndjson", timeout: .seconds(120))
            let acknowledged = (guest.sharedFile("acks.ndjson") ?? "").split(separator: "\n").map(String.init)
            #expect(acknowledged.count == 20)

            let first = try await Self.mainPID(guest)
            try await guest.run("SIGSEGV", "systemctl kill -s SEGV scanbridged.service")
            let second = try await Self.waitForRestart(guest, after: first)
            let recent = try await guest.run(
                "events.recent after the restart", "/usr/bin/scanbridge call events.recent '{\"limit\": 1000}'",
                timeout: .seconds(120))
            let events = try JSONDecoder().decode(JSONValue.self, from: Data(recent.utf8))["events"]?.arrayValue ?? []
            let journaled = Set(events.compactMap { $0["id"]?.stringValue })
            let lost = acknowledged.filter { !journaled.contains($0) }
            #expect(lost.isEmpty, "acknowledged before the crash and not journaled after it: \(lost)")

            try await guest.run("SIGSTOP", "systemctl kill -s STOP scanbridged.service")
            let third = try await Self.waitForRestart(guest, after: second)
            #expect(third != second)
            let journal = try await guest.run("the unit's journal", "journalctl -u scanbridged --no-pager -o cat")
            #expect(journal.contains("Watchdog timeout"), "systemd's watchdog message is in the journal")
            let limit = try await guest.run(
                "the start limit systemd applies", "systemctl show scanbridged.service -p StartLimitIntervalUSec --value")
            #expect(limit.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "restarted however often it fails")
        }

        /// The camera's decoder confines itself with a seccomp filter; the unit's own filter
        /// (`SystemCallFilter=@system-service`) leaves out `seccomp()`, so the decoder must
        /// still get there (through `prctl`) and read a code.
        @Test func aCameraUnderTheUnitDecodesWithItsDecoderConfined() async throws {
            let guest = try await Self.installedGuest()
            let frames = guest.share.appendingPathComponent("camera-frames")
            try LabFolder.makeFolder(frames)
            try CodeImages.qr("SB-CONFINED-1", to: frames.appendingPathComponent("0001.png").path)
            let confined = try await guest.run(
                "a file camera under the unit, until its code is read",
                """
                mkdir -p /etc/systemd/system/scanbridged.service.d
                printf '%s\\n' '[Service]' 'ExecStart=' \
                    'ExecStart=/usr/bin/scanbridged --device file-camera:/lab/camera-frames,loop=yes,fps=2' \
                    >/etc/systemd/system/scanbridged.service.d/zz-camera.conf
                systemctl daemon-reload && systemctl restart scanbridged.service
                i=0
                until /usr/bin/scanbridge call events.recent '{"limit": 10}' | grep -q SB-CONFINED-1; do
                    i=$((i + 1)); [ $i -le 600 ] || { echo "no scan of the code"; exit 1; }; nap 0.1
                done
                filters() { sed -n 's/^Seccomp_filters:\\t//p' "/proc/$1/status"; }
                echo "$(filters "$(systemctl show -p MainPID --value scanbridged.service)")" \
                    "$(filters "$(pgrep -f /usr/lib/scanbridge/scanbridge-zxing)")"
                rm /etc/systemd/system/scanbridged.service.d/zz-camera.conf
                systemctl daemon-reload && systemctl restart scanbridged.service
                """, timeout: .seconds(180))
            // The decoder read the code (it would have ended without a hello, unconfined), under
            // one filter more than the daemon's: its own.
            let counts = confined.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
            #expect(counts.count == 2 && counts[1] == counts[0] + 1, "filters of the daemon, then the decoder: \(confined)")
        }

        @Test func journaldKeepsTheDaemonsPriorities() async throws {
            let guest = try await Self.installedGuest()
            // Any running daemon: the PC/SC driver finds no pcscd in the guest and warns.
            try await guest.run("the service runs", "systemctl start scanbridged.service", timeout: .seconds(120))
            try await guest.waitUntil(
                "the daemon's warning is in the journal",
                "journalctl -u scanbridged -p warning --no-pager -o cat | grep -q 'pcscd does not answer'", timeout: .seconds(60))
            let warnings = try await guest.run(
                "journalctl -p warning", "journalctl -u scanbridged -p warning --no-pager -o cat")
            let all = try await guest.run("journalctl", "journalctl -u scanbridged --no-pager -o cat")
            // The daemon's own lines only, not systemd's about the unit: each one at its priority.
            let daemonWarnings = try await guest.run(
                "the daemon's lines at warning and above",
                "journalctl _SYSTEMD_UNIT=scanbridged.service -p warning --no-pager -o cat")
            let isReady = { (line: Substring) in line.hasSuffix("] ready") }
            #expect(warnings.contains("pcscd does not answer"))
            #expect(!warnings.split(separator: "\n").contains(where: isReady), "\(warnings)")
            #expect(all.split(separator: "\n").contains(where: isReady), "\(all)")
            let levels = Set(daemonWarnings.split(separator: "\n").map { $0.prefix { $0 != " " } })
            #expect(!levels.isEmpty && levels.isSubset(of: ["warning", "error", "critical"]), "\(daemonWarnings)")
        }
    }
}

extension LabSuites.ServiceLane.SystemdServiceLabTests {
    static let wedgeNode = "/dev/input/by-id/usb-Lab_Wedge_Scanner_WEDGE0001-event-kbd"

    /// The wedge gadget's device id: its USB ids and serial.
    static let wedgeID = "evdev:0c2e:0b61:WEDGE0001"

    /// The `scanners` line the suite adds to the installed config.
    static let labScanners = "scanners: {max_gap: 800, idle: 3000}"

    /// A USB HID boot keyboard made in the guest's kernel (dummy_hcd and libcomposite), with
    /// Honeywell's vendor id: a keyboard-wedge scanner to udev's rule and to the daemon.
    /// Made once a guest; run again, it plugs the gadget back in after `wedgeUnplug`.
    /// No `set -e`: it stays set in the script that embeds this, where `nap`'s timed-out
    /// `read` would end the script.
    static let wedgeGadget = """
        modprobe dummy_hcd && modprobe libcomposite && modprobe usb_f_hid || exit 1
        mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config || exit 1
        g=/sys/kernel/config/usb_gadget/wedge
        if [ ! -d $g ]; then
            mkdir -p $g && cd $g \
                && echo 0x0c2e >idVendor && echo 0x0b61 >idProduct \
                && mkdir -p strings/0x409 configs/c.1 functions/hid.usb0 \
                && echo WEDGE0001 >strings/0x409/serialnumber && echo Lab >strings/0x409/manufacturer \
                && echo "Wedge Scanner" >strings/0x409/product \
                && echo 1 >functions/hid.usb0/protocol && echo 1 >functions/hid.usb0/subclass \
                && echo 8 >functions/hid.usb0/report_length \
                && cat /lab/wedge.desc >functions/hid.usb0/report_desc \
                && ln -s $g/functions/hid.usb0 configs/c.1/ || exit 1
        fi
        [ -n "$(cat $g/UDC)" ] || ls /sys/class/udc >$g/UDC || exit 1
        """

    /// The wedge gadget unbound from its controller, as if unplugged; nothing when it is not plugged.
    static let wedgeUnplug = """
        g=/sys/kernel/config/usb_gadget/wedge/UDC
        if [ -e $g ] && [ -n "$(cat $g)" ]; then echo >$g; fi
        udevadm settle
        """

    /// The wedge gadget types the boot keyboard reports in the share's file `name`. Slower than
    /// a real scanner: the daemon under emulation reads slower than a real scanner's reports
    /// would come, and the kernel would drop keys (SYN_DROPPED).
    static func wedgeTypes(_ name: String) -> String {
        """
        timeout 50 python3 -c 'import os, time
        reports = open("/lab/\(name)", "rb").read()
        gadget = os.open("/dev/hidg0", os.O_WRONLY)
        for at in range(0, len(reports), 8):
            os.write(gadget, reports[at:at + 8])
            time.sleep(0.02)'
        """
    }

    /// The HID boot keyboard's report descriptor (HID 1.11, appendix B.1).
    static let bootKeyboardDescriptor: [UInt8] = [
        0x05, 0x01, 0x09, 0x06, 0xA1, 0x01, 0x05, 0x07, 0x19, 0xE0, 0x29, 0xE7, 0x15, 0x00, 0x25, 0x01,
        0x75, 0x01, 0x95, 0x08, 0x81, 0x02, 0x95, 0x01, 0x75, 0x08, 0x81, 0x03, 0x95, 0x05, 0x75, 0x01,
        0x05, 0x08, 0x19, 0x01, 0x29, 0x05, 0x91, 0x02, 0x95, 0x01, 0x75, 0x03, 0x91, 0x03, 0x95, 0x06,
        0x75, 0x08, 0x15, 0x00, 0x25, 0x65, 0x05, 0x07, 0x19, 0x00, 0x29, 0x65, 0x81, 0x00, 0xC0,
    ]

    /// Boot keyboard reports typing `text` (digits and Enter): each key pressed, then released.
    static func keyboardReports(_ text: String) -> [UInt8] {
        text.flatMap { character -> [UInt8] in
            let usage: UInt8 =
                switch character {
                case "\n": 0x28
                case "0": 0x27
                default: 0x1E + UInt8(character.wholeNumberValue! - 1)
                }
            return [0, 0, usage, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 8)
        }
    }

    /// Injects ARGV[1] scans on `mock:till-1` one after another as root (an admin), and
    /// prints each answer's event id as soon as it arrives: what it printed was acknowledged.
    static let inject = """
        import json, socket, sys
        connection = socket.socket(socket.AF_UNIX)
        connection.connect("/run/scanbridge/scanbridge.sock")
        stream = connection.makefile("rwb", buffering=0)
        for n in range(int(sys.argv[1])):
            request = {"jsonrpc": "2.0", "id": n, "method": "scan.inject",
                       "params": {"device": "mock:till-1", "text": "till-%d" % n}}
            stream.write(json.dumps(request).encode() + b"\\n")
            answer = json.loads(stream.readline())
            print(answer["result"]["event"]["id"], flush=True)
        """

    /// The package of the debug binaries, built once per test process on the host, outside
    /// the guest, before any guest boots.
    static let package = Mutex<String?>(nil)

    /// The suite's guest with the package installed (`dpkg -i`, once per guest) and a
    /// member of scanbridge-users to be its client.
    static func installedGuest() async throws -> Guest {
        let deb = try await buildPackage()
        let guest = try await Lab.guest()
        try await guest.run(
            "install the package",
            """
            [ -e /run/lab-installed ] && exit 0
            # A container image's policy-rc.d (the host's, maybe) forbids starting any service.
            rm -f /usr/sbin/policy-rc.d
            dpkg -i \(shellQuoted(deb))
            # QMP's and the gadget's keys come slower than a scanner's under emulation.
            echo '\(labScanners)' >>/etc/scanbridge/scanbridge.yaml
            useradd -M -G scanbridge-users \(client)
            touch /run/lab-installed
            """, timeout: .seconds(240))
        return guest
    }

    static func buildPackage() async throws -> String {
        if let built = package.withLock({ $0 }) { return built }
        let out = LabFolder.root.appendingPathComponent("package")
        try LabFolder.makeFolder(out)
        for old in try FileManager.default.contentsOfDirectory(atPath: out.path) where old.hasSuffix(".deb") {
            try LabFolder.remove(out.appendingPathComponent(old))
        }
        let repository = LabFolder.root.deletingLastPathComponent()
        // debian/rules in the checkout (dh works in the folder that holds debian/), the
        // package written to the lab's folder.
        try await HostCommand.run(
            [
                "-C", repository.path, "SCANBRIDGE_BIN=\(DaemonHarness.productsDirectory.path)",
                "SCANBRIDGE_DEB_OUT=\(out.path)", "SCANBRIDGE_DEB_COMPRESSION=none",
                "DEB_BUILD_OPTIONS=nostrip noautodbgsym nocheck", "debian/rules", "binary",
            ], in: out, step: "build the package of the debug binaries (debian/rules binary)", timeout: .seconds(600))
        let built = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".deb") }
        guard built.count == 1, let name = built.first else {
            throw LabFailure(step: "build the package", reason: "debian/rules left \(built) in \(out.path)")
        }
        let path = out.appendingPathComponent(name).path
        package.withLock { $0 = path }
        return path
    }

    static func mainPID(_ guest: Guest) async throws -> Int {
        let text = try await guest.run("MainPID", "systemctl show -p MainPID --value scanbridged.service")
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Waits until the service runs again under a MainPID other than `pid`, and returns it;
    /// says what systemd and the journal show of the unit when it does not.
    static func waitForRestart(_ guest: Guest, after pid: Int) async throws -> Int {
        try await guest.run(
            "the service is restarted",
            """
            uptime() { cut -d . -f 1 /proc/uptime; }
            end=$(($(uptime) + 240))
            until [ "$(systemctl is-active scanbridged.service)" = active ] \
                && [ "$(systemctl show -p MainPID --value scanbridged.service)" != 0 ] \
                && [ "$(systemctl show -p MainPID --value scanbridged.service)" != \(pid) ]; do
                if [ "$(uptime)" -gt $end ]; then
                    echo "not restarted in 240 s of the guest's time"
                    systemctl status --no-pager -l scanbridged.service
                    journalctl -u scanbridged --no-pager -n 60 -o short-monotonic
                    exit 1
                fi
                nap 0.2
            done
            """, timeout: .seconds(300))
        return try await mainPID(guest)
    }

    /// The scan events in `watch --json` lines.
    static func events(_ text: String?) -> [JSONValue] {
        (text ?? "").split(separator: "\n").compactMap { line in
            guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)), let event = value["event"],
                event["seq"] != nil
            else { return nil }
            return event
        }
    }
}
