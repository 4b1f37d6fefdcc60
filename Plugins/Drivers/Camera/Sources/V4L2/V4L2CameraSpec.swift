import DriverKit

/// A V4L2 camera, as `--device v4l2:/dev/videoN[,KEY=VALUE…]` names it, or as discovery
/// finds it (with the default settings).
///
/// Settings: those of every camera (`CameraSettings`: `fps` caps how many frames a second
/// are decoded; the camera may deliver more, which are taken and given back unread), and
/// `width` and `height`, the frame size asked for (1280×720 by default). The camera's driver
/// may give another size; the one it gives is used.
package struct V4L2CameraSpec: Sendable, Equatable {
    package var path: String
    var width = 1280
    var height = 720
    var camera: CameraSettings

    package static let ownSettings = ["width", "height"]

    package init(path: String, settings: [String: String] = [:]) throws(FrameError) {
        self.path = path
        let given = try CameraSettings.read(settings, own: Self.ownSettings, camera: "a V4L2 camera")
        camera = try CameraSettings(given)
        do throws(DeviceSettingError) {
            width = try given.integer("width", default: width, in: 16...GrayFrame.maxSide, unit: "pixels")
            height = try given.integer("height", default: height, in: 16...GrayFrame.maxSide, unit: "pixels")
        } catch {
            throw .unreadable(error.description)
        }
    }
}
