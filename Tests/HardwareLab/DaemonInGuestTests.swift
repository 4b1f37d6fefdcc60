import Foundation
import ScanBridgeCore
import Testing

extension LabSuites {
    /// The real daemon inside the guest, with real kernel devices around it. One guest for
    /// the whole suite.
    @Suite("Daemon in the guest", .serialized, .sharedGuest(GuestConfiguration(devices: [.usbController])))
    struct DaemonInGuestTests {
        /// A hot-plugged USB keyboard (a keyboard-wedge scanner) shows up in the kernel and,
        /// through the USB stand-in until the evdev driver exists (#6), in the daemon; it goes
        /// on `device_del`.
        @Test func hotPluggedUSBKeyboardComesAndGoes() async throws {
            let guest = try await Lab.guest()
            let daemon = try await guest.startDaemon(["--drivers", "mock"])
            let hello = try await daemon.call("bridge.hello")
            #expect(hello["name"] == "scanbridge")
            #expect(hello["drivers"] == ["mock"])
            try await daemon.startUSBStandIn(serial: "SCAN0001")

            let keyboard = LabDevice.usbKeyboard(id: "scan1", serial: "SCAN0001")
            try await guest.plug(keyboard)
            let kernel = try await guest.run("the kernel's view of the keyboard", """
                node=$(readlink -f \(keyboard.inputByID!))
                echo "node $node"
                for usb in /sys/bus/usb/devices/*; do
                    [ "$(cat $usb/serial 2>/dev/null)" = SCAN0001 ] && echo "usb $(cat $usb/idVendor):$(cat $usb/idProduct) $(cat $usb/product)"
                done
                true
                """)
            #expect(kernel.contains("node /dev/input/event"), "\(kernel)")
            #expect(kernel.contains("usb 0627:0001 QEMU USB Keyboard"), "\(kernel)")
            try await daemon.waitForDevice("mock:usb-SCAN0001", state: "ready")

            try await guest.unplug("scan1")
            try await guest.waitUntil("udev removes the by-id node", "[ ! -e \(keyboard.inputByID!) ]")
            try await daemon.waitForDevice("mock:usb-SCAN0001", state: "gone")
            #expect(try await daemon.call("bridge.hello")["name"] == "scanbridge", "the daemon outlives the unplug")
            try await daemon.stop()
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

        /// What the evdev driver (#6) will make its own: a keyboard-wedge scanner types a code
        /// and Enter, and the daemon publishes one barcode event from that device. Until
        /// then the USB stand-in reads the keys and injects them into a mock device.
        @Test func typedBarcodeBecomesOneScanEvent() async throws {
            try await LabCase(
                "a typed EAN-13 is one barcode event",
                steps: [
                    .usbStandIn(serial: "SCAN0002"),
                    .plug(.usbKeyboard(id: "scan2", serial: "SCAN0002")),
                    .expectDevice("mock:usb-SCAN0002", state: "ready"),
                    .type("4006381333931\n"),
                ],
                expect: [.scan("4006381333931", device: "mock:usb-SCAN0002", symbology: "ean-13")]
            ).run()
        }

        /// Keys typed over QMP arrive, in order and none lost, at the keyboard's evdev node
        /// in the guest: what the evdev driver (#6) will read.
        @Test func typedKeysReachTheGuestsEvdevNode() async throws {
            let guest = try await Lab.guest()
            let keyboard = LabDevice.usbKeyboard(id: "wedge", serial: "TYPE0001")
            try await guest.plug(keyboard)
            try await guest.run("start reading keys from \(keyboard.inputByID!)", """
                rm -f /lab/typed.txt /lab/typed.txt.open
                nohup /lab/bin/evdev-read \(keyboard.inputByID!) /lab/typed.txt 60 >/lab/evdev-read.log 2>&1 &
                i=0; until [ -e /lab/typed.txt.open ]; do i=$((i + 1)); [ $i -le 300 ] || exit 1; sleep 0.1; done
                """)
            try await guest.type("4006381333931\n")
            try await guest.type("RM-1001:Ok\n")
            try await guest.waitUntil("the reader has a line", "[ -e /lab/typed.txt ]")
            #expect(guest.sharedFile("typed.txt") == "4006381333931\n")
            try await guest.unplug("wedge")
        }

        /// uinput loads, so a later test can make a virtual input device of its own.
        @Test func uinputIsThere() async throws {
            let guest = try await Lab.guest()
            try await guest.modprobe("uinput")
            try await guest.waitUntil("/dev/uinput appears", "[ -c /dev/uinput ]")
        }

        /// vivid's loopback hands a frame written to its output back on its capture node.
        @Test func vividLoopsAFrameBack() async throws {
            let guest = try await Lab.guest()
            let loop = try await guest.startVividLoopback()
            var frame = Data(count: VividLoopback.frameBytes)
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
