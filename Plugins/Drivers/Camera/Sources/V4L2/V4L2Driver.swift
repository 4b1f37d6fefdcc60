package import DriverKit
package import Logging
package import ScanBridgeCore
import ScanBridgeModel

/// USB (and other) cameras through V4L2: each camera captured on a thread of its own
/// (`V4L2CaptureLoop`), its frames decoded like every camera's, each code new to the view one
/// `qr` read.
///
/// Cameras come from udev discovery (every video capture node; a camera needs no claim, as it
/// can only be a scanner here, but one released, in `scanners.release` or by the operator, is
/// left alone) and from `--device v4l2:/dev/videoN[,width=…,height=…,fps=…]`.
package final class V4L2Driver: DeviceDriver {
    package static let driverName = "v4l2"
    package let name = V4L2Driver.driverName
    private let devices: [V4L2CameraSpec]
    private let discovery: ScannerChoices?
    private let logger: Logger

    /// - Parameter discovery: the choices that say which discovered cameras to leave alone
    ///   (released); nil to capture only `devices`.
    package init(
        devices: [V4L2CameraSpec], discovery: ScannerChoices? = nil, logger: Logger = Logger(label: "scanbridge.driver.v4l2")
    ) {
        self.devices = devices
        self.discovery = discovery
        self.logger = logger
    }

    package func events() -> AsyncStream<DriverEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DriverEvent.self)
        let named = devices.map { spec in
            V4L2CaptureLoop(
                spec: spec, id: DeviceNode.deviceID(driver: name, path: spec.path), events: continuation, logger: logger)
        }
        let found = discovery.map { choices in
            DiscoveredReaders(
                driver: name, subsystems: ["video4linux"], named: Set(devices.map(\.path)), choices: choices,
                events: continuation, logger: logger, threadName: "scanbridge-v4l2", accepts: Self.accepts,
                judge: { $0.cameraVerdict($1, id: $2) }, makeLoop: Self.make(events: continuation, logger: logger))
        }
        DiscoveredReaders.serve(loops: named, discovered: found, threadName: "scanbridge-v4l2", events: continuation)
        return stream
    }

    /// Every video node but those udev says are no capture nodes (uvcvideo's metadata node,
    /// output nodes); without udevd the capture loop asks the node and leaves it quietly.
    static func accepts(_ node: DiscoveredNode) -> Bool {
        node.isVideoCapture != false
    }

    /// A discovered camera's capture loop, with the default settings.
    static func make(events: AsyncStream<DriverEvent>.Continuation, logger: Logger) -> DiscoveredReaders.MakeLoop {
        { node, id in
            do {
                return V4L2CaptureLoop(spec: try V4L2CameraSpec(path: node.devnode), id: id, events: events, logger: logger)
            } catch {
                logger.error("\(node.devnode): \(error)")
                return nil
            }
        }
    }
}
