import Foundation
import ScanBridgeModel
import Testing

extension LabSuites.USBLane.USBControllerGuest {
    /// The `usb` driver against a real kernel's usbfs, through libusb: QEMU's `usb-serial`, an
    /// FTDI chip (vendor class 0xff) whose kernel driver is kept away, is a scanner in a
    /// vendor mode; with `ftdi_sio` bound, it is a device taken from its kernel driver.
    @Suite(
        "USB devices read through libusb", .serialized, .timeLimit(.minutes(15)))
    struct USBLabTests {
        /// The FTDI chip's two status bytes start every packet it sends; a long idle, so
        /// that a label cut short by an unplug is not taken whole after a pause.
        static let ftdi = "usb:0403:6001,interface=0,packet_header=2,idle=10000"
        /// No kernel driver for the chip: udevd reloads its module rules, which it otherwise
        /// reads again only now and then, and an earlier case's `ftdi_sio` is unloaded.
        static let keepFTDIAway =
            "echo 'install ftdi_sio /bin/false' >/etc/modprobe.d/lab-ftdi.conf && udevadm control --reload && { rmmod ftdi_sio 2>/dev/null; true; }"

        @Test func aVendorModeDeviceIsClaimedReadAndFollowedAcrossAReplug() async throws {
            let guest = try await Lab.guest()
            let device = LabDevice.usbSerial(id: "ftdi1", serial: "FTDI0001")
            let id = "usb:0403:6001:FTDI0001"
            try await guest.run("keep ftdi_sio away", Self.keepFTDIAway)
            let daemon = try await guest.startDaemon(["--drivers", "usb", "--device", Self.ftdi])
            try await guest.plug(device)
            try await daemon.waitForDevice(id, state: "ready")

            try guest.send("4006381333931\r\n", to: device.id)
            // Longer than a packet: split across packets, each with its status bytes.
            let long = "]C1010950600013435210ABC1\u{1D}17251231" + "21" + String(repeating: "S", count: 40)
            try guest.send(long + "\r", to: device.id)
            let scans = try await daemon.waitForScans(2)
            #expect(scans[0]["device"]?.stringValue == id && scans[0]["text"] == "4006381333931")
            #expect(scans[0]["symbology"] == "ean-13" && scans[0]["driver"] == "usb")
            #expect(scans[1]["symbology"] == "gs1-128" && scans[1]["aim"] == "]C1")

            let candidates = try await daemon.call("devices.candidates")["candidates"]?.arrayValue ?? []
            let listed = try #require(candidates.first { $0["id"]?.stringValue == id })
            #expect(listed["read"] == true && listed["reason"] == "named with --device (interface 0)")

            // Unplugged in the middle of a read: the half is dropped, the device gone.
            try guest.send("40063", to: device.id)
            try await Task.sleep(for: .milliseconds(300))  // a scanner's half-sent label: the bytes reach the guest first
            try await guest.unplug(device.id)
            try await daemon.waitForDevice(id, state: "gone")

            try await guest.plug(device)
            try await daemon.waitForDevice(id, state: "ready")
            try guest.send("5901234123457\r", to: device.id)
            let afterReplug = try await daemon.waitForScans(3)
            #expect(
                afterReplug.count == 3 && afterReplug[2]["text"] == "5901234123457" && afterReplug[2]["device"]?.stringValue == id
            )

            let log = try await guest.run("the daemon's log", "cat \(daemon.log)")
            #expect(log.contains("unplugged in the middle of a read: 5 byte(s) discarded"))
            try await daemon.stop()
            try await guest.unplug(device.id)
        }

        @Test func anInterfaceItsKernelDriverHasIsTakenOnlyWithDetachAndGivenBack() async throws {
            let guest = try await Lab.guest()
            let device = LabDevice.usbSerial(id: "ftdi2", serial: "FTDI0002")
            let id = "usb:0403:6001:FTDI0002"
            try await guest.run(
                "let ftdi_sio bind", "rm -f /etc/modprobe.d/lab-ftdi.conf && udevadm control --reload && modprobe ftdi_sio")
            try await guest.plug(device)
            try await guest.waitUntil("ftdi_sio made a ttyUSB port", "ls /sys/bus/usb-serial/devices/ | grep -q ttyUSB")

            let polite = try await guest.startDaemon(["--drivers", "usb", "--device", Self.ftdi])
            try await polite.waitForDevice(id, state: "busy")
            let busy = try await polite.devices().first { $0["id"]?.stringValue == id }
            #expect(busy?["error"]?.stringValue?.contains("the kernel's ftdi_sio has interface 0: add detach=on") == true)
            try await polite.stop()

            let taking = try await guest.startDaemon(["--drivers", "usb", "--device", Self.ftdi + ",detach=on"])
            try await taking.waitForDevice(id, state: "ready")
            try await guest.waitUntil("the ttyUSB port is gone", "! ls /sys/bus/usb-serial/devices/ | grep -q ttyUSB")
            try guest.send("4006381333931\r", to: device.id)
            let scans = try await taking.waitForScans(1)
            #expect(scans[0]["device"]?.stringValue == id && scans[0]["text"] == "4006381333931")
            try await taking.stop()
            try await guest.waitUntil(
                "ftdi_sio has the interface back once the daemon stopped", "ls /sys/bus/usb-serial/devices/ | grep -q ttyUSB")
            try await guest.unplug(device.id)
        }

        /// `devices.reset` of a vendor-mode scanner, a wedge scanner and a card reader: each
        /// is read again under its id, the reader's next card included.
        @Test func aResetDeviceIsReadAgainUnderItsId() async throws {
            let guest = try await Lab.guest()
            let serial = LabDevice.usbSerial(id: "ftdi3", serial: "FTDI0003")
            let keyboard = LabDevice.usbKeyboard(id: "kbd3", serial: "RESET0001")
            let reader = LabDevice.usbCCID(id: "ccid3", serial: "CCID0003")
            let usbID = "usb:0403:6001:FTDI0003"
            let keyboardNode = try #require(keyboard.inputByID)
            let keyboardID = "evdev:" + keyboardNode.dropFirst().replacingOccurrences(of: "/", with: "_")
            try await guest.run("keep ftdi_sio away", Self.keepFTDIAway)
            try await guest.plug(serial)
            try await guest.plug(reader)
            try await guest.plug(keyboard)
            // The vendor-mode device claimed in the config this time, as --device names it.
            try "scanners:\n  claim: [\"USB:0403:6001,interface=0,packet_header=2\"]\n".write(
                to: guest.share.appendingPathComponent("usb-claim.yaml"), atomically: true, encoding: .utf8)
            let daemon = try await guest.startDaemon([
                "--drivers", "usb,evdev,pcsc", "--config", "/lab/usb-claim.yaml",
                "--device", "evdev:\(keyboardNode),max_gap=800,idle=3000",
            ])
            try await daemon.startPCSCD()
            try await daemon.waitForDevice(usbID, state: "ready")
            try await daemon.waitForDevice(keyboardID, state: "ready")
            let readers = try await daemon.devices().filter { $0["driver"] == "pcsc" }
            let readerID = try #require(readers.first?["id"]?.stringValue, "pcscd lists the usb-ccid reader")

            let answer = try await daemon.call("devices.reset", #"{"id":"\#(usbID)"}"#)
            #expect(answer["usb"] == "0403:6001" && answer["path"]?.stringValue?.hasPrefix("/dev/bus/usb/") == true)
            let again = try await guest.run(
                "a second reset at once", "\(daemon.cli) call devices.reset '{\"id\":\"\(usbID)\"}'; echo \"status $?\"")
            #expect(again.contains("once every 10 s") && !again.contains("status 0"), "\(again)")
            try await daemon.waitForDevice(usbID, state: "ready")
            try guest.send("4006381333931\r", to: serial.id)
            #expect(try await daemon.waitForScans(1).last?["device"]?.stringValue == usbID)

            _ = try await daemon.call("devices.reset", #"{"id":"\#(keyboardID)"}"#)
            try await daemon.waitForDevice(keyboardID, state: "ready")
            try await guest.type("5901234123457\n")
            let typed = try await daemon.waitForScans(2)
            #expect(typed[1]["device"]?.stringValue == keyboardID && typed[1]["text"] == "5901234123457")

            let resetReader = try await daemon.call("devices.reset", #"{"id":"\#(readerID)"}"#)
            #expect(resetReader["usb"] == "08e6:4433")
            // No card can be tapped on QEMU's reader: after the reset, pcscd still serves it,
            // and the daemon lists it as before.
            try await guest.waitUntil("pcscd lists the reader after its reset", "pcsc_scan -r 2>/dev/null | grep -q CCID0003")
            try await daemon.waitForDevice(readerID, state: "ready")
            // The next card is read: QEMU's virtual card is a contact one, with no contactless
            // UID, so it refuses the driver's GET DATA, and the reader's error says so.
            try await guest.plug(.ccidCard(id: "card3", reader: reader.id))
            try await daemon.waitForDevice(readerID, state: "error")
            let afterCard = try await daemon.devices().first { $0["id"]?.stringValue == readerID }
            #expect(
                afterCard?["error"]?.stringValue?.contains("take it away and tap again") == true,
                "\(String(describing: afterCard))")
            try await guest.unplug("card3")

            // The kernel reports a device at address 0 in the middle of a reset: never a device of its own.
            let notices = daemon.deviceNotifications().compactMap { $0["path"]?.stringValue }
            #expect(!notices.contains { $0.hasSuffix("/000") }, "\(notices)")
            let log = try await guest.run("the daemon's log", "cat \(daemon.log)")
            #expect(!log.contains("/dev/bus/usb/001/000"))

            let metrics = try await guest.run(
                "the daemon's metrics", "\(daemon.cli) call bridge.hello >/dev/null; grep -c 'USB device .* reset' \(daemon.log)")
            #expect(metrics.trimmingCharacters(in: .whitespacesAndNewlines) == "3", "each reset is logged")
            try await daemon.stop()
            for device in [serial, keyboard, reader] { try await guest.unplug(device.id) }
        }

        /// QEMU's USB keyboard, a wedge scanner, taken from usbhid (`detach=on`): its boot
        /// reports decoded into the text evdev would give, in two layouts, and the kernel's
        /// keyboard back once the daemon lets go.
        @Test func aBootKeyboardTakenFromUsbhidIsDecodedInItsLayout() async throws {
            let guest = try await Lab.guest()
            let keyboard = LabDevice.usbKeyboard(id: "kbd4", serial: "USBKBD01")
            let node = try #require(keyboard.inputByID)
            let id = "usb:0627:0001:USBKBD01"
            try await guest.plug(keyboard)
            for (layout, text) in [("us", "qwy40"), ("de", "qwz40")] {
                let daemon = try await guest.startDaemon([
                    "--drivers", "usb", "--device",
                    "usb:0627:0001:USBKBD01,interface=0,detach=on,layout=\(layout),max_gap=800,idle=3000",
                ])
                try await daemon.waitForDevice(id, state: "ready")
                try await guest.waitUntil("usbhid let go of the keyboard", "[ ! -e \(node) ]")
                try await guest.type("qwy40\n")
                let scans = try await daemon.waitForScans(1)
                #expect(scans[0]["device"]?.stringValue == id && scans[0]["text"]?.stringValue == text, "layout \(layout)")
                try await daemon.stop()
                try await guest.waitUntil("usbhid has the keyboard back", "[ -e \(node) ]")
            }
            try await guest.unplug(keyboard.id)
        }

        /// No polling: with a device open and nothing sent, its thread never wakes. A waiting
        /// loop that polls wakes many times a second, so a few seconds show it; the CPU figure
        /// over a minute is the benchmark's. The daemon's CPU over the window, beside the same
        /// daemon with no USB device (the baseline), is printed: a figure, not an assertion.
        static let idleSeconds = 10

        @Test func anOpenDeviceThatSendsNothingWakesNoThread() async throws {
            let guest = try await Lab.guest()
            let device = LabDevice.usbSerial(id: "ftdi5", serial: "FTDI0005")
            try await guest.run("keep ftdi_sio away", Self.keepFTDIAway)
            try await guest.plug(device)
            var cpu: [String] = []
            for named in [false, true] {
                let daemon = try await guest.startDaemon(["--drivers", "usb"] + (named ? ["--device", Self.ftdi] : []))
                if named { try await daemon.waitForDevice("usb:0403:6001:FTDI0005", state: "ready") }
                let sample = """
                    pid=$(cat /run/\(daemon.name)/scanbridged.pid)
                    ticks() { awk '{print $14 + $15}' /proc/$pid/stat; }
                    wakes() { for t in /proc/$pid/task/*; do [ "$(cat $t/comm 2>/dev/null)" = scanbridge-usb ] && \
                        awk '/ctxt_switches/ {n += $2} END {print n}' $t/status 2>/dev/null; done; }
                    """
                let output = try await guest.run(
                    "\(daemon.name): \(Self.idleSeconds) s with nothing sent",
                    sample + "\n"
                        + """
                        sleep 1
                        a=$(ticks); w=$(wakes); sleep \(Self.idleSeconds); b=$(ticks); x=$(wakes)
                        echo "$((b - a)) $(getconf CLK_TCK) ${w:-none} ${x:-none}"
                        """, timeout: .seconds(40 + Self.idleSeconds))
                let last = output.split(separator: "\n").last ?? ""
                let fields = last.split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
                let ticks = Double(fields[0]) ?? 0
                let perSecond = Double(fields[1]) ?? 100
                cpu.append(String(format: "%.3f%%", ticks / perSecond / Double(Self.idleSeconds) * 100))
                if named {
                    #expect(fields[2] != "none", "the device's thread is named scanbridge-usb")
                    #expect(fields[2] == fields[3], "the device's thread woke while nothing was sent: \(output)")
                }
                try await daemon.stop()
            }
            print(
                "usb idle, the daemon's CPU over \(Self.idleSeconds) s in the lab guest: no USB device \(cpu[0]), a device open \(cpu[1])"
            )
            try await guest.unplug(device.id)
        }
    }
}
