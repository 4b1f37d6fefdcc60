import Foundation
import ScanBridgeTesting
import Testing

extension LabSuites.ServiceLane.SystemdServiceLabTests {
    /// `scanners.grab` alone decides whether the desktop gets a wedge scanner's keys, under the
    /// installed package and its udev rule. Debian's libinput plays the desktop: its
    /// `debug-events` reads every keyboard of the seat as a compositor would, and leaves alone
    /// a node udev marks `LIBINPUT_IGNORE_DEVICE`.
    @Test func grabDecidesWhetherTheDesktopGetsAWedgeScannersKeys() async throws {
        let guest = try await Self.installedGuest()
        try await Self.installLibinput(in: guest)
        // Three labels with no key in common between the second and the third, so the keys
        // the desktop got tell which label they came from.
        let shared = "5901234123457"
        let grabbed = "4002115000117"
        let byHand = "8888"
        for (name, text) in [("shared", shared), ("grabbed", grabbed), ("by-hand", byHand)] {
            try Data(Self.keyboardReports(text + "\n")).write(to: guest.share.appendingPathComponent("\(name).reports"))
        }
        try Data(Self.bootKeyboardDescriptor).write(to: guest.share.appendingPathComponent("wedge.desc"))

        // grab: false. Both the daemon and the desktop read the scanner.
        try await guest.run(
            "grab: false: the daemon restarted, the desktop watching",
            """
            set -e
            \(Self.wedgeUnplug)
            \(Self.configScanners("scanners: {max_gap: 800, idle: 3000, grab: false}"))
            systemctl restart scanbridged.service
            \(Self.desktopWatches("desktop-shared.log"))
            """, timeout: .seconds(120))
        let seen = try await guest.run(
            "the wedge scanner is plugged in", Self.plugAndDescribe("desktop-shared.log"), timeout: .seconds(120))
        #expect(seen.contains("SCANBRIDGE_SCANNER=1") && !seen.contains("LIBINPUT_IGNORE_DEVICE"), "\(seen)")
        #expect(seen.contains("libinput lists: Lab Wedge Scanner"), "\(seen)")
        try await guest.run(
            "the daemon reads the scanner too",
            "/lab/bin/device-state /run/scanbridge/scanbridge.sock \(Self.wedgeID) ready 90", timeout: .seconds(120))
        try await guest.run("the scanner types a label", Self.wedgeTypes("shared.reports"))
        try await guest.run(
            "the daemon and the desktop get it", Self.daemonAndDesktopGet(shared, "desktop-shared.log"), timeout: .seconds(200))
        #expect(Self.desktopKeys(guest.sharedFile("desktop-shared.log")) == Self.keys(shared + "\n"))

        // grab: true, taken by a daemon started after the desktop opened the node.
        try await guest.run(
            "grab: true: the daemon stopped, the desktop watching",
            """
            set -e
            \(Self.wedgeUnplug)
            systemctl stop scanbridged.socket scanbridged.service
            \(Self.configScanners(Self.labScanners))
            \(Self.desktopWatches("desktop-grabbed.log"))
            """, timeout: .seconds(120))
        let hidden = try await guest.run(
            "the wedge scanner is plugged in, the daemon stopped", Self.plugAndDescribe("desktop-grabbed.log"),
            timeout: .seconds(120))
        #expect(!hidden.contains("LIBINPUT_IGNORE_DEVICE") && hidden.contains("libinput lists: Lab Wedge Scanner"), "\(hidden)")
        try await guest.run(
            "the daemon starts and grabs the scanner the desktop has open",
            """
            set -e
            systemctl start scanbridged.socket scanbridged.service
            /lab/bin/device-state /run/scanbridge/scanbridge.sock \(Self.wedgeID) ready 90
            """, timeout: .seconds(150))
        try await guest.run("the scanner types a label", Self.wedgeTypes("grabbed.reports"))
        try await guest.run("the daemon gets it", Self.daemonGets(grabbed), timeout: .seconds(150))
        // The grab ends with the daemon's process: what the scanner types now is the desktop's.
        try await guest.run(
            "the daemon stops; the scanner types again",
            "systemctl stop scanbridged.socket scanbridged.service && \(Self.wedgeTypes("by-hand.reports"))",
            timeout: .seconds(120))
        try await guest.run(
            "the desktop gets the keys typed with the daemon stopped",
            Self.within(60, "Enter from libinput", "grep -q 'KEY_ENTER (28) released' /lab/desktop-grabbed.log") + "\n"
                + Self.desktopStops)
        // In order: had any key of the grabbed label reached the desktop, it would be here,
        // before the keys typed with the daemon stopped.
        #expect(Self.desktopKeys(guest.sharedFile("desktop-grabbed.log")) == Self.keys(byHand + "\n"))

        try await guest.run(
            "the service as it was, the scanner unplugged",
            """
            systemctl start scanbridged.socket scanbridged.service
            \(Self.wedgeUnplug)
            """, timeout: .seconds(120))
    }
}

extension LabSuites.ServiceLane.SystemdServiceLabTests {
    /// Debian's libinput, its tools, and what they need that the host may lack.
    static let libinputPackages = [
        "libinput-tools", "libinput-bin", "libinput10", "libevdev2", "libmtdev1", "libwacom9", "libwacom-common",
        "libgudev-1.0-0", "python3-libevdev", "python3-pyudev",
    ]

    /// libinput installed in the guest's overlay (the host is never changed), from packages
    /// downloaded once into the lab's folder. No triggers: man-db's would index every manual
    /// page under emulation; ldconfig is the one the libraries need.
    static func installLibinput(in guest: Guest) async throws {
        let folder = try await libinputDownloads()
        try await guest.run(
            "install libinput's tools in the guest",
            """
            command -v libinput >/dev/null && exit 0
            dpkg -i --no-triggers \(shellQuoted(folder.path))/*.deb >/lab/libinput-install.log 2>&1 \
                || { tail -20 /lab/libinput-install.log; exit 1; }
            ldconfig
            """, timeout: .seconds(240))
    }

    /// The packages, downloaded by `apt-get download` (never installed on the host) into a
    /// scratch folder renamed when whole, so an interrupted download is never used. Where they
    /// cannot be had the case is cancelled, as the lab is where it has no kernel package.
    static func libinputDownloads() async throws -> URL {
        let folder = LabFolder.root.appendingPathComponent("libinput-debs")
        if FileManager.default.fileExists(atPath: folder.path) { return folder }
        let scratch = LabFolder.root.appendingPathComponent(".libinput-debs-\(getpid())")
        try LabFolder.remove(scratch)
        try LabFolder.makeFolder(scratch)
        do {
            try await HostCommand.run(
                ["apt-get", "download", "-q"] + libinputPackages, in: scratch, step: "download libinput's packages")
        } catch let failure as LabFailure where !LabRequirements.mustRun {
            // Offline, the lab still boots its cached image: this case alone cannot run.
            try Test.cancel(Comment(rawValue: "no libinput to play the desktop: \(failure)"))
        }
        try FileManager.default.moveItem(at: scratch, to: folder)
        return folder
    }

    /// The installed config's `scanners` line replaced by `line`; written in place, so the
    /// file keeps the owner and mode the package gave it.
    static func configScanners(_ line: String) -> String {
        """
        config=/etc/scanbridge/scanbridge.yaml
        grep -v '^scanners:' $config >/run/lab-config.yaml
        echo '\(line)' >>/run/lab-config.yaml
        cat /run/lab-config.yaml >$config
        """
    }

    /// `libinput debug-events` in the background, its lines into the share's file `log` as
    /// they come; its pid in /run/lab-desktop.pid.
    static func desktopWatches(_ log: String) -> String {
        """
        nohup stdbuf -oL libinput debug-events --show-keycodes >/lab/\(log) 2>&1 &
        echo $! >/run/lab-desktop.pid
        """
    }

    /// Stops the desktop's `debug-events` and waits for it to end.
    static let desktopStops = """
        pid=$(cat /run/lab-desktop.pid)
        kill -INT $pid
        while kill -0 $pid 2>/dev/null; do nap 0.1; done
        """

    /// Plugs the wedge gadget in, then prints what udev's rules gave its event node and
    /// whether libinput lists it, once the desktop's `debug-events` (writing `log`) has it open.
    static func plugAndDescribe(_ log: String) -> String {
        """
        \(wedgeGadget)
        \(within(30, "\(wedgeNode)", "[ -e \(wedgeNode) ]"))
        udevadm settle
        udevadm info -q property -n \(wedgeNode) | grep -E '^(LIBINPUT_IGNORE_DEVICE|SCANBRIDGE_SCANNER)='
        libinput list-devices | sed -n 's/^Device: *\\(.*Wedge.*\\)/libinput lists: \\1/p'
        \(within(60, "DEVICE_ADDED of the scanner from libinput", "grep -q 'DEVICE_ADDED.*Wedge Scanner' /lab/\(log)"))
        """
    }

    /// Waits until the daemon's journal has `text` and the desktop's `log` the label's Enter,
    /// then stops the desktop's `debug-events`.
    static func daemonAndDesktopGet(_ text: String, _ log: String) -> String {
        [
            daemonGets(text),
            within(60, "Enter from libinput", "grep -q 'KEY_ENTER (28) released' /lab/\(log)"),
            desktopStops,
        ].joined(separator: "\n")
    }

    /// Waits until the daemon's journal has a scan of `text`.
    static func daemonGets(_ text: String) -> String {
        let recent = "/usr/bin/scanbridge call events.recent '{\"limit\": 20}'"
        return within(120, "scan of \(text) from the daemon", "\(recent) | grep -q \(text)")
    }

    /// A loop until `condition` holds, failing with `what` after `seconds` of the guest's time
    /// (read with builtins: a process a poll would cost the emulated guest more than the poll).
    /// Not for a script under `set -e`, which `nap`'s timed-out `read` would end.
    static func within(_ seconds: Int, _ what: String, _ condition: String) -> String {
        """
        read -r up _ </proc/uptime; end=$((${up%.*} + \(seconds)))
        until \(condition); do
            read -r up _ </proc/uptime
            [ "${up%.*}" -le $end ] || { echo "still no \(what) after \(seconds) s"; exit 1; }
            nap 0.2
        done
        """
    }

    /// The keys the desktop saw pressed, by name, in the order it saw them.
    static func desktopKeys(_ log: String?) -> [String] {
        (log ?? "").split(separator: "\n").compactMap { line in
            guard line.contains("KEYBOARD_KEY"), line.hasSuffix(" pressed") else { return nil }
            return line.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("KEY_") }.map(String.init)
        }
    }

    /// The keys that type `text` (digits and Enter), by their evdev names.
    static func keys(_ text: String) -> [String] {
        text.map { $0 == "\n" ? "KEY_ENTER" : "KEY_\($0)" }
    }
}
