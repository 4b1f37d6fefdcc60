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
        let loops = devices.map { spec in
            let loop = FileCameraLoop(spec: spec, events: continuation, logger: logger)
            loop.start(name: "scanbridge-file-camera")
            return loop
        }
        continuation.onTermination = { _ in
            for loop in loops { loop.stop.stop() }
        }
        return stream
    }
}
