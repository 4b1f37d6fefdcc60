import DriverKit

/// A file camera, as `--device file-camera:PATH[,KEY=VALUE…]` names it: a folder of PGM/PNG
/// frames (played in name order) or a Y4M file, shown to the decoder as a camera would.
///
/// Settings: those of every camera (`CameraSettings`: `fps` is the rate the frames are
/// played at), and `loop` (`yes` to start again at the end; `no`, the default, leaves the
/// camera looking at nothing).
package struct FileCameraSpec: Sendable, Equatable {
    package var path: String
    var loop = false
    var camera: CameraSettings

    package init(path: String, settings: [String: String] = [:]) throws(FrameError) {
        self.path = path
        let given = try CameraSettings.read(settings, own: ["loop"], camera: "a file camera")
        camera = try CameraSettings(given)
        do throws(DeviceSettingError) {
            loop = try given.flag("loop", default: false, words: "yes or no")
        } catch {
            throw .unreadable(error.description)
        }
    }
}
