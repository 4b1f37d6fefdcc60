import Foundation
import ScanBridgeModel
import ScanBridgeTesting
import Testing

extension LabSuites.USBLane.USBControllerGuest {
    /// A USB scanner made in the guest's own kernel: a gadget (libcomposite over dummy_hcd)
    /// with a Honeywell vendor id, a CDC-ACM serial port and a HID POS interface, seen by the
    /// guest as a real USB device (`ttyACM0`, a hidraw node). Discovery finds both; what the
    /// gadget side writes (`ttyGS0`, `hidg0`) the drivers read as from a real scanner.
    @Suite(
        "USB scanner gadget", .serialized, .timeLimit(.minutes(15)))
    struct GadgetScannerTests {
        static let serial = "GADGET0001"

        @Test func serialAndHIDPOSScannersFoundAndRead() async throws {
            let guest = try await Lab.guest()
            try Data(HIDPOSReports.commonDescriptor).write(to: guest.share.appendingPathComponent("pos.desc"))
            let long = "0109506000134352" + "10ABC1\u{1D}17251231" + "21" + String(repeating: "S", count: 30) + "\u{1D}91XYZ"
            try Data(HIDPOSReports.reports("4006381333931", aim: "]E0") + HIDPOSReports.reports(long, aim: "]C1"))
                .write(to: guest.share.appendingPathComponent("pos.reports"))
            let daemon = try await guest.startDaemon(["--drivers", "hidpos,serial"])
            try await guest.run(
                "a USB scanner gadget: ACM serial and HID POS, vendor 0c2e",
                """
                modprobe dummy_hcd && modprobe libcomposite && modprobe usb_f_acm && modprobe usb_f_hid
                mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
                g=/sys/kernel/config/usb_gadget/scanner
                mkdir -p $g && cd $g
                echo 0x0c2e >idVendor && echo 0x0b87 >idProduct
                mkdir -p strings/0x409 configs/c.1 functions/acm.usb0 functions/hid.usb0
                echo \(Self.serial) >strings/0x409/serialnumber && echo "Lab Gadget Scanner" >strings/0x409/product
                echo 0 >functions/hid.usb0/protocol && echo 0 >functions/hid.usb0/subclass
                echo 64 >functions/hid.usb0/report_length
                cat /lab/pos.desc >functions/hid.usb0/report_desc
                ln -s $g/functions/acm.usb0 configs/c.1/ && ln -s $g/functions/hid.usb0 configs/c.1/
                ls /sys/class/udc >UDC
                """)
            let serialID = "serial:0c2e:0b87:\(Self.serial)"
            let hidposID = "hidpos:0c2e:0b87:\(Self.serial)#02"
            try await daemon.waitForDevice(serialID, state: "ready")
            try await daemon.waitForDevice(hidposID, state: "ready")

            try await guest.run("the gadget's serial port sends a label", "printf '4006381333931\\r\\n' >/dev/ttyGS0")
            let first = try #require(try await daemon.waitForScans(1).first)
            #expect(
                first["device"]?.stringValue == serialID && first["text"] == "4006381333931" && first["symbology"] == "ean-13")

            try await guest.run(
                "the gadget's HID POS interface sends three reports", "dd if=/lab/pos.reports of=/dev/hidg0 bs=64 2>&1")
            let scans = try await daemon.waitForScans(3)
            #expect(
                scans[1]["device"]?.stringValue == hidposID && scans[1]["text"] == "4006381333931" && scans[1]["aim"] == "]E0")
            #expect(scans[2]["text"]?.stringValue == long && scans[2]["symbology"] == "gs1-128")

            try await guest.run("unplug the gadget", "echo '' >/sys/kernel/config/usb_gadget/scanner/UDC")
            try await daemon.waitForDevice(serialID, state: "gone")
            try await daemon.waitForDevice(hidposID, state: "gone")
            try await daemon.stop()
        }
    }
}
