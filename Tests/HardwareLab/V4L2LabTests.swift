import CameraDriver
import Foundation
import ScanBridgeModel
import ScanBridgeTesting
import Testing

extension LabSuites.ServiceLane {
    /// The V4L2 driver on the guest's real kernel: vivid's loopback shows frames drawn here
    /// to the daemon's real capture path (discovery, QUERYCAP, ENUM_FMT, S_FMT, mmap
    /// streaming), and vivid's Disconnect control and a reload of the module stand in for an
    /// unplug and a replug.
    @Suite("V4L2 cameras", .serialized, .sharedGuest(GuestConfiguration(devices: [])), .timeLimit(.minutes(15)))
    struct V4L2LabTests {
        static let order = """
            {"order": {"id": "ord_1001", "reference": "RM-1001", "status": "in_progress", "clientName": "Ada Lovelace"}}
            """
        /// vivid's capture node, found by discovery: not on USB, so named by where it sits.
        static let camera = "v4l2:platform-vivid.0"

        /// `text` as a QR code drawn by qrencode, in the middle of a loopback frame.
        static func qrFrame(_ text: String, on loop: VividLoopback) throws -> Data {
            let file = NSTemporaryDirectory() + "scanbridge-lab-qr-\(UUID().uuidString).png"
            defer { try? FileManager.default.removeItem(atPath: file) }
            try CodeImages.qr(text, to: file, moduleSize: 4)
            let qr = try FrameFiles.read(path: file)
            return loop.frame(showing: qr.packed, width: qr.width, height: qr.height)
        }

        /// The lines of the daemon's process maps that map a video node, its open video nodes,
        /// and its capture threads (named `scanbridge-v4l2`).
        static func videoMappings(_ guest: Guest, _ daemon: GuestDaemon) async throws -> String {
            try await guest.run(
                "\(daemon.name): its video mappings, fds and capture threads",
                """
                pid=$(cat /run/\(daemon.name)/scanbridged.pid)
                grep /dev/video /proc/$pid/maps || true
                ls -l /proc/$pid/fd | grep /dev/video || true
                grep -h scanbridge-v4l2 /proc/$pid/task/*/comm || true
                """)
        }

        /// A repair-order QR label shown to vivid's capture node is one `qr` scan, resolved by
        /// order-lookup, however many frames it stays in view. Discovery takes the capture
        /// node and leaves the output node alone; the daemon reads GREY, the best of vivid's
        /// formats, at the size vivid gives for the 1280×720 asked for (its scaler makes that
        /// of the 720×480 NTSC loop).
        @Test func aQRLabelShownToTheCameraIsOneScanResolvedByOrderLookup() async throws {
            let guest = try await Lab.guest()
            let loop = try await guest.startVividLoopback(format: "GREY")
            let formats = try await guest.run("vivid's capture formats", "v4l2-ctl -d \(loop.capture) --list-formats")
            #expect(formats.contains("'GREY'") && formats.contains("'YUYV'"), "\(formats)")
            let daemon = try await guest.startDaemon(["--drivers", "v4l2"])
            _ = try await daemon.call("orders.upsert", Self.order)
            try await daemon.waitForDevice(Self.camera, state: "ready")
            let cameras = try await daemon.devices()
            #expect(cameras.map { $0["id"]?.stringValue } == [Self.camera], "the output node is no camera")
            #expect(cameras.first?["path"]?.stringValue == loop.capture && cameras.first?["kind"] == "qr")

            try await loop.feed(try Self.qrFrame("https://app.repairminder.com/orders/ord_1001", on: loop), name: "order")
            let scan = try #require(try await daemon.waitForScans(1, timeout: .seconds(60)).first)
            #expect(scan["text"] == "https://app.repairminder.com/orders/ord_1001" && scan["kind"] == "qr")
            #expect(scan["symbology"] == "qr" && scan["device"]?.stringValue == Self.camera && scan["driver"] == "v4l2")
            #expect(scan["resolution"]?["handler"] == "order-lookup" && scan["resolution"]?["status"] == "found")
            // Still in view for several more seconds of frames: no second event. A deliberate
            // quiet interval: what is proved is that nothing arrives.
            try await Task.sleep(for: .seconds(4))
            #expect(daemon.scans().count == 1)
            try await loop.stopFeeding()
            let format = try await guest.run("the capture node's format", "v4l2-ctl -d \(loop.capture) --get-fmt-video")
            let size =
                format.split(separator: "\n").first { $0.contains("Width/Height") }?.split(separator: ":").last?
                .trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "/", with: "×") ?? "?"
            let log = guest.sharedFile("\(daemon.name).log") ?? ""
            #expect(log.contains("capturing GREY \(size) from \(loop.capture)"), "\(format)\n\(log.suffix(2000))")
            let mappings = try await Self.videoMappings(guest, daemon)
            #expect(
                mappings.split(separator: "\n").filter { $0.contains("/dev/video") }.count >= 2,
                "buffers mapped and the node open: \(mappings)")
            #expect(mappings.contains("scanbridge-v4l2"), "a capture thread: \(mappings)")
            try await daemon.stop()
            try await guest.run("unload vivid", "rmmod vivid")
        }

        /// vivid's platform device unbound from its driver is a USB unplug (the nodes are
        /// unregistered under the daemon's open node and removed): the camera is `gone`, its
        /// buffers unmapped, its node closed and its thread ended. Bound again, it is plugged
        /// in again: discovery finds it, `ready` under the same id.
        @Test func anUnpluggedCameraIsGoneUnmappedAndBackUnderItsIdWhenReplugged() async throws {
            let guest = try await Lab.guest()
            let loop = try await guest.startVividLoopback(format: "GREY")
            let daemon = try await guest.startDaemon(["--drivers", "v4l2"])
            try await daemon.waitForDevice(Self.camera, state: "ready")
            try await guest.run("unplug vivid.0", "echo vivid.0 >/sys/bus/platform/drivers/vivid/unbind")
            try await daemon.waitForDevice(Self.camera, state: "gone")
            // `gone` is reported just before the thread returns.
            try await guest.waitUntil(
                "the capture thread ends",
                "! grep -qs scanbridge-v4l2 /proc/$(cat /run/\(daemon.name)/scanbridged.pid)/task/*/comm")
            let mappings = try await Self.videoMappings(guest, daemon)
            #expect(!mappings.contains("/dev/video"), "no buffer left mapped, no node left open: \(mappings)")
            #expect(!mappings.contains("scanbridge-v4l2"), "the capture thread ended: \(mappings)")

            try await guest.run("plug vivid.0 back", "echo vivid.0 >/sys/bus/platform/drivers/vivid/bind")
            try await daemon.waitForDevice(Self.camera, state: "ready")
            let cameras = try await daemon.devices()
            #expect(cameras.map { $0["id"]?.stringValue } == [Self.camera] && cameras.first?["path"]?.stringValue == loop.capture)
            let streaming = try await Self.videoMappings(guest, daemon)
            #expect(streaming.contains(loop.capture) && streaming.contains("scanbridge-v4l2"), "capturing again: \(streaming)")
            try await daemon.stop()
            try await guest.run("unload vivid", "rmmod vivid")
        }

        /// A camera named with `--device` and a size (discovery off): captured at that size.
        /// vivid's Disconnect makes its ioctls answer ENODEV while its nodes stay, and
        /// reconnects them once the last program lets go: the camera is `gone`, then opened
        /// again under the same id, twice, with no buffer, node or thread left over from before.
        @Test func aCameraComingBackIsOpenedAgainWithNothingLeftOver() async throws {
            let guest = try await Lab.guest()
            let loop = try await guest.startVividLoopback(format: "GREY")
            try "scanners:\n  discover: false\n".write(
                to: guest.share.appendingPathComponent("no-discovery.yaml"), atomically: true, encoding: .utf8)
            let daemon = try await guest.startDaemon([
                "--drivers", "v4l2", "--config", "/lab/no-discovery.yaml",
                "--device", "v4l2:\(loop.capture),width=640,height=480,fps=5",
            ])
            let id = "v4l2:dev_" + loop.capture.dropFirst("/dev/".count)
            try await daemon.waitForDevice(id, state: "ready")
            let before = try await Self.videoMappings(guest, daemon)
            for round in 2...3 {
                try await guest.run("vivid: disconnect", "v4l2-ctl -d \(loop.capture) --set-ctrl=disconnect=1")
                try await guest.waitUntil(
                    "the camera captures again",
                    """
                    [ "$(grep -c 'capturing GREY 640×480 from \(loop.capture), decoding up to 5.0 frames a second' \(daemon.log))" -ge \(round) ]
                    """)
            }
            try await daemon.waitForDevice(id, state: "ready")
            let states = daemon.deviceNotifications().filter { $0["id"]?.stringValue == id }.compactMap {
                $0["state"]?.stringValue
            }
            #expect(states.suffix(4) == ["gone", "ready", "gone", "ready"], "\(states)")
            let after = try await Self.videoMappings(guest, daemon)
            func count(_ text: String) -> (maps: Int, fds: Int, threads: Int) {
                let lines = text.split(separator: "\n")
                return (
                    lines.filter { $0.hasSuffix(loop.capture) && !$0.contains("->") }.count,
                    lines.filter { $0.contains("-> \(loop.capture)") }.count, lines.filter { $0 == "scanbridge-v4l2" }.count
                )
            }
            #expect(
                count(before).maps > 0 && count(before) == count(after) && count(after).fds == 1 && count(after).threads == 1,
                "before:\n\(before)\nafter:\n\(after)")
            let log = guest.sharedFile("\(daemon.name).log") ?? ""
            #expect(!log.contains("trying again every second"), "gone, never error: \(log.suffix(2000))")
            try await daemon.stop()
            try await guest.run("unload vivid", "rmmod vivid")
        }
    }
}

extension LabSuites.USBLane {
    /// Cameras found without udevd (a container, a minimal box): vivid loaded after the
    /// daemon started is seen through inotify on /dev, its capture node told from its output
    /// node by asking each (`VIDIOC_QUERYCAP`), and named from sysfs as udev would.
    @Suite(
        "V4L2 cameras without udevd", .serialized, .sharedGuest(GuestConfiguration(devices: [], udev: false)),
        .timeLimit(.minutes(15)))
    struct V4L2NoUdevLabTests {
        @Test func aCameraPluggedInLaterIsFoundAndItsOutputNodeLeftAlone() async throws {
            let guest = try await Lab.guest()
            let daemon = try await guest.startDaemon(["--drivers", "v4l2"])
            try await guest.modprobe("vivid", "n_devs=1", "node_types=0x101")
            try await daemon.waitForDevice(LabSuites.ServiceLane.V4L2LabTests.camera, state: "ready")
            let cameras = try await daemon.devices()
            #expect(
                cameras.map { $0["id"]?.stringValue } == [LabSuites.ServiceLane.V4L2LabTests.camera],
                "the output node is no camera")
            let log = guest.sharedFile("\(daemon.name).log") ?? ""
            #expect(log.contains("udevd does not run"), "\(log.suffix(2000))")
            #expect(log.contains("is not a video capture node") == false, "left alone quietly (debug level): \(log.suffix(2000))")
            try await daemon.stop()
            try await guest.run("unload vivid", "rmmod vivid")
        }
    }
}
