import DeviceNodes
import Glibc
import Logging
import ScanBridgeCore
import USBDiscovery

/// USB (and other) cameras through V4L2: each camera captured on a thread of its own
/// (`V4L2CaptureLoop`), its frames decoded like every camera's, each code new to the view one
/// `qr` read.
///
/// Cameras come from udev discovery (every video capture node; a camera needs no claim, as it
/// can only be a scanner here, but one released in `scanners.release` is left alone) and from
/// `--device v4l2:/dev/videoN[,width=…,height=…,fps=…]`.
public final class V4L2Driver: DeviceDriver {
    public static let driverName = "v4l2"
    public let name = V4L2Driver.driverName
    private let devices: [V4L2CameraSpec]
    private let discovery: ScannerSelection?
    private let logger: Logger

    /// - Parameter discovery: which discovered cameras to leave alone (`released`); nil to
    ///   capture only `devices`.
    public init(devices: [V4L2CameraSpec], discovery: ScannerSelection? = nil, logger: Logger = Logger(label: "scanbridge.driver.v4l2")) {
        self.devices = devices
        self.discovery = discovery
        self.logger = logger
    }

    public func events() -> AsyncStream<DriverEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DriverEvent.self)
        let named = devices.map { spec in
            V4L2CaptureLoop(spec: spec, id: DeviceNode.deviceID(driver: name, path: spec.path), events: continuation, logger: logger)
        }
        let found = discovery.map { selection in
            DiscoveredReaders(subsystems: ["video4linux"], named: Self.nodes(devices.map(\.path)), events: continuation, logger: logger,
                              threadName: "scanbridge-v4l2", takeLoop: Self.take(selection: selection, events: continuation, logger: logger))
        }
        DiscoveredReaders.serve(loops: named, discovered: found, threadName: "scanbridge-v4l2", events: continuation)
        return stream
    }

    /// The paths named with `--device` and the nodes they lead to: a camera named by its
    /// `/dev/v4l/by-id/…` link is the `/dev/videoN` discovery reports, and two loops on one
    /// camera would leave one of them `busy`.
    static func nodes(_ paths: [String]) -> Set<String> {
        Set(paths + paths.compactMap { path in
            guard let resolved = realpath(path, nil) else { return nil }
            defer { free(resolved) }
            return String(cString: resolved)
        })
    }

    /// Every video capture node, with the default settings, unless released in the config.
    /// Nodes udev says are no capture nodes (uvcvideo's metadata node, output nodes) are
    /// left alone here; without udevd the capture loop asks the node and leaves it quietly.
    static func take(selection: ScannerSelection, events: AsyncStream<DriverEvent>.Continuation, logger: Logger) -> DiscoveredReaders.TakeLoop {
        { node in
            guard node.isVideoCapture != false else {
                logger.debug("\(node.devnode) is no video capture node: left alone")
                return nil
            }
            let id = node.deviceID(driver: driverName)
            guard !selection.releases(node, id: id) else {
                logger.info("\(node.devnode) (\(id)) is released in the config: left alone")
                return nil
            }
            do {
                let spec = try V4L2CameraSpec(path: node.devnode)
                let loop = V4L2CaptureLoop(spec: spec, id: id, events: events, logger: logger)
                return (loop, id, node.isVideoCapture == true ? "a video capture node" : "a video node, to be asked whether it captures")
            } catch {
                logger.error("\(node.devnode): \(error)")
                return nil
            }
        }
    }
}
