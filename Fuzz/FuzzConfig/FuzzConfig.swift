import Foundation
import FuzzSupport
import ScanBridgeConfig

/// The daemon's YAML config file, loaded as `scanbridged --config` loads it (from a file:
/// the YAML, its keys, its types, the mock scripts it names) and checked for its ranges and
/// its in-store barcode layouts.
/// Any bytes give a config or an error naming the file, never a crash.
@main enum FuzzConfig: FuzzTarget {
    /// One file per fuzzing process, written again for each input.
    private static let path = NSTemporaryDirectory() + "/scanbridge-fuzz-\(getpid()).yaml"

    static func test(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard FileManager.default.createFile(atPath: path, contents: Data(buffer: bytes)) else {
            fatalError("cannot write \(path)")
        }
        guard let config = try? DaemonConfig.load(path: path) else { return }
        _ = try? config.checkRanges()
        _ = try? config.catalog.variableMeasureRegion()
        _ = try? config.mockDevices(relativeTo: path)
    }
}
