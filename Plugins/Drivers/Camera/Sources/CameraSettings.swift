/// What every camera takes in its `--device` settings, whatever its frames come from (files
/// or V4L2): `fps` (frames decoded a second at most, 0.1 to 120, default 10), `symbologies`
/// (`+`-separated, default `qr+ean+code-128`; add `data-matrix`), `out-of-view` (milliseconds
/// a code must be gone before it counts again, default 1000), `datamatrix-ms` (libdmtx's
/// time per frame, default 100).
public struct CameraSettings: Sendable, Equatable {
    var fps: Double = 10
    var symbologies = CameraSymbologies.default
    var outOfView: Duration = .seconds(1)
    var dataMatrixTimeLimit: Duration = .milliseconds(100)

    public static let names = ["fps", "symbologies", "out-of-view", "datamatrix-ms"]

    /// The shared settings of `settings`; any name neither shared nor in `own` (the camera's
    /// other settings, parsed by its spec) is an error naming `camera`.
    init(_ settings: [String: String], own: [String], camera: String) throws(FrameError) {
        let known = Self.names + own
        if let unknown = settings.keys.sorted().first(where: { !known.contains($0) }) {
            throw .unreadable("unknown setting '\(unknown)' for \(camera) (known: \(known.joined(separator: ", ")))")
        }
        if let value = settings["fps"] {
            guard let fps = Double(value), fps >= 0.1, fps <= 120 else { throw .unreadable("fps takes 0.1 to 120, not '\(value)'") }
            self.fps = fps
        }
        if let value = settings["symbologies"] { symbologies = try CameraSymbologies(parsing: value) }
        outOfView = .milliseconds(try Self.integer("out-of-view", settings["out-of-view"], default: 1000, in: 0...600_000, unit: "milliseconds"))
        dataMatrixTimeLimit = .milliseconds(try Self.integer("datamatrix-ms", settings["datamatrix-ms"], default: 100, in: 1...10_000, unit: "milliseconds"))
    }

    /// A whole number setting within `range` (`fallback` when not given).
    static func integer(_ name: String, _ value: String?, default fallback: Int, in range: ClosedRange<Int>, unit: String) throws(FrameError) -> Int {
        guard let value else { return fallback }
        guard let number = Int(value), range.contains(number) else {
            throw .unreadable("\(name) takes \(unit) from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
        }
        return number
    }
}
