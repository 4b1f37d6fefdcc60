/// A file camera, as `--device file-camera:PATH[,KEY=VALUE…]` names it: a folder of PGM/PNG
/// frames (played in name order) or a Y4M file, shown to the decoder as a camera would.
///
/// Settings: those of every camera (`CameraSettings`: `fps` is the rate the frames are
/// played at), and `loop` (`yes` to start again at the end; `no`, the default, leaves the
/// camera looking at nothing).
public struct FileCameraSpec: Sendable, Equatable {
    public var path: String
    var loop = false
    var camera: CameraSettings

    public init(path: String, settings: [String: String] = [:]) throws(FrameError) {
        self.path = path
        camera = try CameraSettings(settings, own: ["loop"], camera: "a file camera")
        if let value = settings["loop"] {
            switch value {
            case "yes", "true", "1": loop = true
            case "no", "false", "0": loop = false
            default: throw .unreadable("loop takes yes or no, not '\(value)'")
            }
        }
    }
}
