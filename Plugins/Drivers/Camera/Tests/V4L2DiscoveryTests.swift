import DriverKit
import ScanBridgeCore
import ScanBridgeModel
import Testing

@testable import CameraDriver

/// Which discovered video nodes the v4l2 driver takes, and under which id.
struct V4L2DiscoveryTests {
    static func node(_ name: String, capture: Bool?, usb: Bool = true) -> DiscoveredNode {
        var node = DiscoveredNode(subsystem: "video4linux", devnode: "/dev/" + name, sysname: name)
        if usb {
            node.vendorId = 0x046D
            node.productId = 0x0825
            node.portPath = "1-2"
        } else {
            node.busPath = "platform-vivid.0"
        }
        node.isVideoCapture = capture
        return node
    }

    /// The id the driver captures `node` under, or nil when it leaves it alone.
    static func taken(_ node: DiscoveredNode, released: [String] = []) -> String? {
        let id = node.deviceID(driver: V4L2Driver.driverName)
        guard V4L2Driver.accepts(node), ScannerSelection(released: released).cameraVerdict(node, id: id).read else { return nil }
        return id
    }

    @Test func captureNodesAreCamerasMetadataNodesAreNot() {
        #expect(Self.taken(Self.node("video0", capture: true)) == "v4l2:046d:0825@1-2")
        #expect(Self.taken(Self.node("video1", capture: false)) == nil, "uvcvideo's metadata node")
        // Without udevd nobody has said: the capture loop asks the node itself.
        #expect(Self.taken(Self.node("video0", capture: nil, usb: false)) == "v4l2:platform-vivid.0")
    }

    @Test func aReleasedCameraIsLeftAlone() {
        #expect(Self.taken(Self.node("video0", capture: true), released: ["046d:0825"]) == nil)
        #expect(Self.taken(Self.node("video0", capture: true, usb: false), released: ["v4l2:platform-vivid.0"]) == nil)
        #expect(Self.taken(Self.node("video0", capture: true), released: ["0c2e:0b81"]) != nil)
    }
}
