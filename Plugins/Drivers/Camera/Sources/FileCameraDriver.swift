import DriverKit
package import Logging
package import ScanBridgeCore
import ScanBridgeModel

/// Cameras made of files, for demos and tests: each `--device file-camera:PATH` plays a
/// folder of PGM/PNG frames or a Y4M file through the same decoding and de-duplication a
/// V4L2 camera's frames get, on a thread of its own. Each new code in view is one `qr` read.
package final class FileCameraDriver: DeviceDriver {
    package static let driverName = "file-camera"
    package let name = FileCameraDriver.driverName
    private let devices: [FileCameraSpec]
    private let logger: Logger

    package init(devices: [FileCameraSpec], logger: Logger = Logger(label: "scanbridge.driver.file-camera")) {
        self.devices = devices
        self.logger = logger
    }

    package func events() -> AsyncStream<DriverEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DriverEvent.self)
        let loops = zip(devices, Self.deviceIDs(devices)).map { spec, id in
            let loop = FileCameraLoop(spec: spec, id: id, events: continuation, logger: logger)
            loop.start(name: "scanbridge-file-camera")
            return loop
        }
        continuation.onTermination = { _ in
            for loop in loops { loop.stop.stop() }
        }
        return stream
    }

    /// Each camera's id, from its folder's or file's own name rather than its path, so that
    /// moving the checkout (the demo's camera lives in it) keeps the device, and with it the
    /// device filters and histories that name it. Two of the same name are told apart by
    /// their order on the command line: `-2`, `-3`…
    package static func deviceIDs(_ specs: [FileCameraSpec]) -> [String] {
        var taken: Set<String> = []
        return specs.map { spec in
            let name = spec.path.split(separator: "/").last.map(String.init) ?? spec.path
            let base = DeviceNode.deviceID(driver: driverName, path: name)
            var id = base
            var count = 1
            while !taken.insert(id).inserted {
                count += 1
                id = "\(base)-\(count)"
            }
            return id
        }
    }
}
