/// A file camera, as `--device file-camera:PATH[,KEY=VALUE…]` names it: a folder of PGM/PNG
/// frames (played in name order) or a Y4M file, shown to the decoder as a camera would.
///
/// Settings: `fps` (frames a second, default 10), `loop` (`yes` to start again at the end;
/// `no`, the default, leaves the camera looking at nothing), `symbologies` (`+`-separated,
/// default `qr+ean+code-128`; add `data-matrix`), `out-of-view` (milliseconds a code must be
/// gone before it counts again, default 1000), `datamatrix-ms` (libdmtx's time per frame,
/// default 100).
public struct FileCameraSpec: Sendable, Equatable {
    public var path: String
    var fps: Double = 10
    var loop = false
    var symbologies = CameraSymbologies.default
    var outOfView: Duration = .seconds(1)
    var dataMatrixTimeLimit: Duration = .milliseconds(100)

    public static let settingNames = ["fps", "loop", "symbologies", "out-of-view", "datamatrix-ms"]

    public init(path: String, settings: [String: String] = [:]) throws(FrameError) {
        self.path = path
        if let unknown = settings.keys.sorted().first(where: { !Self.settingNames.contains($0) }) {
            throw .unreadable("unknown setting '\(unknown)' for a file camera (known: \(Self.settingNames.joined(separator: ", ")))")
        }
        if let value = settings["fps"] {
            guard let fps = Double(value), fps >= 0.1, fps <= 120 else { throw .unreadable("fps takes 0.1 to 120, not '\(value)'") }
            self.fps = fps
        }
        if let value = settings["loop"] {
            switch value {
            case "yes", "true", "1": loop = true
            case "no", "false", "0": loop = false
            default: throw .unreadable("loop takes yes or no, not '\(value)'")
            }
        }
        if let value = settings["symbologies"] { symbologies = try CameraSymbologies(parsing: value) }
        outOfView = .milliseconds(try Self.milliseconds("out-of-view", settings["out-of-view"], default: 1000, in: 0...600_000))
        dataMatrixTimeLimit = .milliseconds(try Self.milliseconds("datamatrix-ms", settings["datamatrix-ms"], default: 100, in: 1...10_000))
    }

    private static func milliseconds(_ name: String, _ value: String?, default fallback: Int, in range: ClosedRange<Int>) throws(FrameError) -> Int {
        guard let value else { return fallback }
        guard let number = Int(value), range.contains(number) else {
            throw .unreadable("\(name) takes milliseconds from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
        }
        return number
    }
}
