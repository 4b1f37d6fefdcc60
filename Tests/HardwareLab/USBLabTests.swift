import Foundation
import ScanBridgeModel
import Testing

extension LabSuites {
    /// The `usb` driver against a real kernel's usbfs, through libusb: QEMU's `usb-serial`, an
    /// FTDI chip (vendor class 0xff) whose kernel driver is kept away, is a scanner in a
    /// vendor mode; with `ftdi_sio` bound, it is a device taken from its kernel driver.
    @Suite(
        "USB devices read through libusb", .serialized, .sharedGuest(GuestConfiguration(devices: [.usbController])),
        .timeLimit(.minutes(15)))
    struct USBLabTests {
        /// The FTDI chip's two status bytes start every packet it sends; a long idle, so
        /// that a label cut short by an unplug is not taken whole after a pause.
        static let ftdi = "usb:0403:6001,interface=0,packet_header=2,idle=10000"

        @Test func aVendorModeDeviceIsClaimedReadAndFollowedAcrossAReplug() async throws {
            let guest = try await Lab.guest()
            let device = LabDevice.usbSerial(id: "ftdi1", serial: "FTDI0001")
            let id = "usb:0403:6001:FTDI0001"
            try await guest.run(
                "keep ftdi_sio away", "echo 'install ftdi_sio /bin/false' >/etc/modprobe.d/lab-ftdi.conf")
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
            try await guest.run("let ftdi_sio bind", "rm -f /etc/modprobe.d/lab-ftdi.conf && modprobe ftdi_sio")
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
    }
}
