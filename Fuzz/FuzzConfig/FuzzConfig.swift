import Foundation
import FuzzSupport
import MockDriver
import PCSCDriver
import ScanBridgeConfig
import ScanBridgeServer
import ScanBridgeStore
import USBDriver

/// The daemon's YAML config file, loaded as `scanbridged --config` loads it (from a file:
/// the YAML, its keys, its types, each module's section decoded by its own settings type, the
/// mock scripts it names) and checked for its ranges and its in-store barcode layouts.
/// Any bytes give a config or an error naming the file, never a crash. The `http:` and
/// `store:` sections are left to ScanBridgeConfigTests: their types live in the gateway and
/// the shared store, which would bring BoringSSL into this sanitized build, and they go
/// through the same key-checking decoder as the rest.
enum FuzzConfig: FuzzTarget {
    /// One file per fuzzing process, written again for each input.
    private static let path = NSTemporaryDirectory() + "/scanbridge-fuzz-\(getpid()).yaml"

    static func test(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard FileManager.default.createFile(atPath: path, contents: Data(buffer: bytes)) else {
            fatalError("cannot write \(path)")
        }
        guard let config = try? DaemonConfig.load(path: path) else { return }
        _ = try? config.checkRanges()
        _ = try? config.catalog.variableMeasureRegion()
        _ = try? config.section("journal", as: JournalSettings.self)
        _ = try? config.section("server", as: ServerLimits.self)
        _ = try? config.section("pcsc", as: PCSCSettings.self)
        _ = try? config.section("usb", as: USBSettings.self)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        for entry in (try? config.section("mock", as: [MockDeviceEntry].self)) ?? [] {
            _ = try? entry.spec(relativeTo: folder)
        }
    }
}
