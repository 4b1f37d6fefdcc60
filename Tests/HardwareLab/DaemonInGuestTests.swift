import Foundation
import ScanBridgeModel
import ScanBridgeTesting
import Testing

extension LabSuites.USBLane.USBControllerGuest {
    /// The real daemon inside the guest, with real kernel devices around it. One guest for
    /// the whole suite.
    @Suite(
        "Daemon in the guest", .serialized, .timeLimit(.minutes(15)))
    struct DaemonInGuestTests {
        /// A hot-plugged USB keyboard claimed as a scanner in the config is found through
        /// udev, grabbed, and read by the evdev driver: a typed EAN-13 is one barcode event
        /// resolved by product-lookup, and no other reader of the node sees the keys. Unplugged
        /// it is `gone`; plugged again it is the same device (its id comes from its USB serial),
        /// grabbed and read again.
        @Test func aClaimedUSBKeyboardIsAScannerFoundGrabbedAndRead() async throws {
            let guest = try await Lab.guest()
            // QMP types a key every 30 ms, and the emulated guest stretches that: a slow scanner.
            try "scanners:\n  claim: [\"0627:0001\"]\n  max_gap: 800\n  idle: 3000\n"
                .write(to: guest.share.appendingPathComponent("wedge.yaml"), atomically: true, encoding: .utf8)
            let daemon = try await guest.startDaemon(["--drivers", "evdev", "--config", "/lab/wedge.yaml"])
            let keyboard = LabDevice.usbKeyboard(id: "scan1", serial: "SCAN0001")
            let id = "evdev:0627:0001:SCAN0001"
            try await guest.plug(keyboard)
            try await daemon.waitForDevice(id, state: "ready")
            try await startReader(guest, keyboard, output: "other.txt", seconds: 15)
            try await guest.type("4006381333931\n")
            let scan = try #require(try await daemon.waitForScans(1).first)
            #expect(
                scan["text"] == "4006381333931" && scan["device"]?.stringValue == id && scan["symbology"] == "ean-13",
                "\(scan)")
            #expect(scan["driver"] == "evdev" && scan["resolution"]?["handler"] == "product-lookup")
            try await guest.waitUntil("the other reader gives up", "[ -e /lab/other.txt ]", timeout: .seconds(30))
            #expect(guest.sharedFile("other.txt") == "", "the grab keeps the keys from every other reader")

            try await guest.unplug("scan1")
            try await daemon.waitForDevice(id, state: "gone")
            try await guest.plug(keyboard)
            try await daemon.waitForDevice(id, state: "ready")
            try await guest.type("5901234123457\n")
            let scans = try await daemon.waitForScans(2)
            #expect(scans.last?["text"] == "5901234123457" && scans.last?["device"]?.stringValue == id)
            try await guest.unplug("scan1")
            try await daemon.stop()
        }

        /// A keyboard that is no scanner (QEMU's, not claimed) is left alone: not listed, not
        /// grabbed, its keys still reach other readers.
        @Test func aPlainKeyboardIsLeftAlone() async throws {
            let guest = try await Lab.guest()
            let daemon = try await guest.startDaemon(["--drivers", "evdev"])
            let keyboard = LabDevice.usbKeyboard(id: "plain", serial: "KBD00001")
            try await guest.plug(keyboard)
            // Discovery has seen it and turned it down: only then do its keys and the empty
            // device list say that the daemon leaves it alone.
            let candidate = try await candidate("evdev:0627:0001:KBD00001", of: daemon)
            #expect(candidate["read"] == false && candidate["reason"] == "not a scanner", "\(candidate)")
            try await startReader(guest, keyboard, output: "plain.txt", seconds: 60)
            try await guest.type("hello\n")
            try await guest.waitUntil("the reader has the line", "[ -e /lab/plain.txt ]")
            #expect(guest.sharedFile("plain.txt") == "hello\n")
            #expect(try await daemon.devices().isEmpty, "no evdev device for a plain keyboard")
            try await guest.unplug("plain")
            try await daemon.stop()
        }

        /// The operator's override, live: a plain keyboard (QEMU's, no scanner maker, no scanner
        /// name) is a candidate that is not read; `scanbridge devices claim` makes it `ready` at
        /// once, grabbed, a typed EAN-13 one scan event from it; `release` lets it go (`gone`,
        /// its keys reach other readers again); claimed again, the claim outlives a restart.
        @Test func anOperatorClaimsAPlainKeyboardLiveAndTheClaimOutlivesARestart() async throws {
            let guest = try await Lab.guest()
            try "scanners:\n  max_gap: 800\n  idle: 3000\n"
                .write(to: guest.share.appendingPathComponent("slow.yaml"), atomically: true, encoding: .utf8)
            let options = ["--drivers", "evdev", "--config", "/lab/slow.yaml"]
            let daemon = try await guest.startDaemon(options)
            let keyboard = LabDevice.usbKeyboard(id: "claim1", serial: "CLAIM001")
            let id = "evdev:0627:0001:CLAIM001"
            try await guest.plug(keyboard)
            let candidate = try await candidate(id, of: daemon)
            #expect(candidate["read"] == false && candidate["reason"] == "not a scanner" && candidate["usb"] == "0627:0001")
            #expect(try await daemon.devices().isEmpty, "a plain keyboard is not read")

            let claimed = try await guest.run("claim \(id)", "\(daemon.cli) devices claim \(id)")
            #expect(claimed.contains("claimed:  \(id.lowercased())"), "\(claimed)")
            try await daemon.waitForDevice(id, state: "ready")
            try await startReader(guest, keyboard, output: "claimed.txt", seconds: 12)
            try await guest.type("4006381333931\n")
            let scan = try #require(try await daemon.waitForScans(1).first)
            #expect(
                scan["text"] == "4006381333931" && scan["device"]?.stringValue == id && scan["symbology"] == "ean-13",
                "\(scan)")
            try await guest.waitUntil("the other reader gives up", "[ -e /lab/claimed.txt ]", timeout: .seconds(30))
            #expect(guest.sharedFile("claimed.txt") == "", "claimed, it is grabbed")

            _ = try await guest.run("release \(id)", "\(daemon.cli) devices release \(id)")
            try await daemon.waitForDevice(id, state: "gone")
            try await startReader(guest, keyboard, output: "released.txt", seconds: 60)
            try await guest.type("hello\n")
            try await guest.waitUntil("the other reader has the line", "[ -e /lab/released.txt ]")
            #expect(guest.sharedFile("released.txt") == "hello\n", "released, its keys reach other readers")
            #expect(daemon.scans().count == 1, "and the daemon reads none of them")

            _ = try await guest.run("claim \(id) again", "\(daemon.cli) devices claim \(id)")
            try await daemon.waitForDevice(id, state: "ready")
            try await daemon.stop()
            let restarted = try await guest.startDaemon(options, name: daemon.name)
            try await restarted.waitForDevice(id, state: "ready")
            try await guest.type("5901234123457\n")
            let scans = try await restarted.waitForScans(2)
            #expect(scans.last?["text"] == "5901234123457" && scans.last?["device"]?.stringValue == id)
            try await guest.unplug("claim1")
            try await restarted.stop()
        }

        /// The candidate `id` once discovery lists it.
        private func candidate(_ id: String, of daemon: GuestDaemon) async throws -> JSONValue {
            try await waitFor("\(id) in devices.candidates", timeout: .seconds(30)) {
                let listed = try await daemon.call("devices.candidates")["candidates"]?.arrayValue ?? []
                return listed.first { $0["id"]?.stringValue == id }
            }
        }

        /// Another program reading `keyboard`'s node: its first `lines` lines go to `/lab/OUTPUT`
        /// (those that came, when the rest did not come within `seconds`).
        private func startReader(
            _ guest: Guest, _ keyboard: LabDevice, output: String, seconds: Int, lines: Int = 1
        ) async throws {
            try await guest.run(
                "a reader of \(keyboard.inputByID!)",
                """
                rm -f /lab/\(output) /lab/\(output).open
                nohup /lab/bin/evdev-read \(keyboard.inputByID!) /lab/\(output) \(seconds) \(lines) \\
                    >/lab/evdev-read-\(output).log 2>&1 &
                i=0; until [ -e /lab/\(output).open ]; do i=$((i + 1)); [ $i -le 300 ] || exit 1; nap 0.1; done
                """)
        }

        /// A scanner made with uinput under a scanner maker's vendor id (Honeywell), set up for
        /// a German layout: found by its maker, its German keys decoded with `layout: de`.
        @Test func aUinputScannerOnAGermanLayout() async throws {
            let guest = try await Lab.guest()
            try await guest.modprobe("uinput")
            try await guest.waitUntil("/dev/uinput appears", "[ -c /dev/uinput ]")
            // The guest is emulated: under load, keys 3 ms apart arrive up to tens of ms apart,
            // so this case (about the layout, not the timing) allows gaps as the others do.
            try "scanners:\n  layout: de\n  max_gap: 800\n  idle: 3000\n".write(
                to: guest.share.appendingPathComponent("german.yaml"), atomically: true, encoding: .utf8)
            var recording = KeyboardRecording(layout: .de, startingAt: 0)
            recording.type("Zylinder-42\n")
            recording.type("4006381333931\n")
            try Data(recording.bytes).write(to: guest.share.appendingPathComponent("german.events"))
            let daemon = try await guest.startDaemon(["--drivers", "evdev", "--config", "/lab/german.yaml"])
            try await daemon.background("uinput", "/lab/bin/uinput-scanner /lab/german.events Lab_Barcode_Scanner 0c2e 0b81")
            try await guest.waitUntil("the uinput scanner exists", "[ -e /lab/german.events.created ]")
            let id = try await firstDevice(of: daemon, "the uinput scanner in devices.list") { device in
                device["id"]?.stringValue?.hasPrefix("evdev:0c2e:0b81") == true
            }
            try await daemon.waitForDevice(id, state: "ready")
            try await guest.run("type", "touch /lab/german.events.go")
            let scans = try await daemon.waitForScans(2)
            #expect(scans.map { $0["text"]?.stringValue } == ["Zylinder-42", "4006381333931"])
            #expect(scans.allSatisfy { $0["device"]?.stringValue == id })
            try await guest.run("remove the uinput scanner", "touch /lab/german.events.done")
            try await daemon.waitForDevice(id, state: "gone")
            try await daemon.stop()
        }

        /// The id of the first listed device `matches` accepts (`what`), waiting for it.
        private func firstDevice(of daemon: GuestDaemon, _ what: String, _ matches: (JSONValue) -> Bool) async throws -> String {
            try await waitFor(what, timeout: .seconds(30)) {
                try await daemon.devices().first(where: matches)?["id"]?.stringValue
            }
        }

        /// A scan injected through the socket inside the guest reaches the daemon's subscribers.
        @Test func scanInjectedInsideTheGuest() async throws {
            let outcome = try await LabCase(
                "inject through the socket in the guest",
                daemon: ["--drivers", "mock", "--mock", "barcode:till-1"],
                steps: [.expectDevice("mock:till-1", state: "ready"), .inject(device: "mock:till-1", text: "4006381333931")],
                expect: [.scan("4006381333931", device: "mock:till-1", symbology: "ean-13")]
            ).run()
            #expect(outcome.scans.first?["seq"] == 1)
            #expect(outcome.scans.first?["kind"] == "barcode")
        }

        /// Keys typed over QMP arrive, in order and none lost, at the keyboard's evdev node
        /// in the guest: what the evdev driver reads.
        @Test func typedKeysReachTheGuestsEvdevNode() async throws {
            let guest = try await Lab.guest()
            let keyboard = LabDevice.usbKeyboard(id: "wedge", serial: "TYPE0001")
            try await guest.plug(keyboard)
            try await startReader(guest, keyboard, output: "typed.txt", seconds: 60, lines: 2)
            try await guest.type("4006381333931\n")
            try await guest.type("RM-1001:Ok\n")
            try await guest.waitUntil("the reader has both lines", "[ -e /lab/typed.txt ]")
            #expect(guest.sharedFile("typed.txt") == "4006381333931\nRM-1001:Ok\n")
            try await guest.unplug("wedge")
        }

        /// vivid's loopback hands a frame written to its output back on its capture node.
        @Test func vividLoopsAFrameBack() async throws {
            let guest = try await Lab.guest()
            let loop = try await guest.startVividLoopback()
            var frame = Data(count: loop.frameBytes)
            for index in stride(from: 0, to: frame.count, by: 2) {
                frame[index] = UInt8(16 + (index / 2 % VividLoopback.width) % 220)  // Y: a ramp per line
                frame[index + 1] = 128  // U and V: grey
            }
            let captured = try await loop.loop(frame, name: "ramp")
            #expect(captured.count == frame.count)
            let differing = zip(captured, frame).filter { $0 != $1 }.count
            #expect(differing == 0, "\(differing) of \(frame.count) bytes differ")
        }
    }
}
