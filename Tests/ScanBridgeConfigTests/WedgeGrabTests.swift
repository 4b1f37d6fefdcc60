import Foundation
import Testing

@testable import ScanBridgeConfig

/// `scanners.grab`: whether keyboard-wedge scanners are grabbed, for the ones discovery finds
/// and for `--device evdev:…` nodes that do not say `grab=` themselves.
@Suite("scanners.grab")
struct WedgeGrabTests {
    private func scanners(_ yaml: String) throws -> DaemonConfig.Scanners {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("scanbridge.yaml").path
        try Data(yaml.utf8).write(to: URL(fileURLWithPath: path))
        return try DaemonConfig.load(path: path).scanners
    }

    @Test func ungrabbedScannersAreReadWithGrabOff() throws {
        let scanners = try scanners("scanners:\n  grab: false\n  layout: de\n")
        #expect(scanners.grab == false)
        #expect(scanners.wedgeSettings == ["layout": "de", "grab": "off"])
        #expect(scanners.namedWedgeSettings([:]) == ["grab": "off"])
        #expect(scanners.namedWedgeSettings(["grab": "on", "layout": "fr"]) == ["grab": "on", "layout": "fr"], "grab= wins")
    }

    @Test func withoutTheKeyTheDriversDefaultHolds() throws {
        let scanners = try scanners("scanners:\n  discover: true\n")
        #expect(scanners.grab == nil)
        #expect(scanners.wedgeSettings == ["layout": "us"])
        #expect(scanners.namedWedgeSettings(["layout": "fr"]) == ["layout": "fr"])
        #expect(try self.scanners("scanners:\n  grab: true\n").wedgeSettings["grab"] == "on")
    }

    @Test func anythingButTrueOrFalseIsRefused() {
        #expect(throws: DaemonConfig.LoadError.self) { try scanners("scanners:\n  grab: sometimes\n") }
    }
}
