import DriverKit

/// What every camera takes in its `--device` settings, whatever its frames come from (files
/// or V4L2): `fps` (frames decoded a second at most, 0.1 to 120, default 10), `symbologies`
/// (`+`-separated, default all), `out-of-view` (milliseconds a code must be gone before it
/// counts again, default 1000). `datamatrix-ms`, the time cap of the Data Matrix decoder
/// cameras had before, is still taken, and checked, so a camera's older settings start; no
/// decoder needs it now.
package struct CameraSettings: Sendable, Equatable {
    var fps: Double = 10
    var symbologies = CameraSymbologies.all
    var outOfView: Duration = .seconds(1)

    package static let names = ["fps", "symbologies", "out-of-view", "datamatrix-ms"]

    /// The settings of a camera's `--device`: those of every camera (`names`) and its `own`
    /// (read by its spec); any other name is an error naming `camera`.
    static func read(_ settings: [String: String], own: [String], camera: String) throws(FrameError) -> DeviceSettings {
        do throws(DeviceSettingError) {
            return try DeviceSettings(settings, known: names + own, device: camera)
        } catch {
            throw .unreadable(error.description)
        }
    }

    /// The settings every camera takes, from the camera's `read` settings.
    init(_ settings: DeviceSettings) throws(FrameError) {
        if let value = settings["fps"] {
            guard let fps = Double(value), fps >= 0.1, fps <= 120 else {
                throw .unreadable("fps takes 0.1 to 120, not '\(value)'")
            }
            self.fps = fps
        }
        if let value = settings["symbologies"] { symbologies = try CameraSymbologies(parsing: value) }
        do throws(DeviceSettingError) {
            outOfView = try settings.milliseconds("out-of-view", default: outOfView, in: 0...600_000)
            _ = try settings.milliseconds("datamatrix-ms", default: .milliseconds(100))
        } catch {
            throw .unreadable(error.description)
        }
    }
}
