package import Foundation
import ScanBridgeCodes
package import ScanBridgeModel

/// One entry of the config file's `mock:` list: a mock device attached at start, with a
/// script of timed scans read from a file beside the config.
package struct MockDeviceEntry: Decodable, Sendable {
    package var kind: DeviceKind
    package var id: String?
    package var name: String?
    /// A script file of timed scans, relative to the config file.
    package var script: String?
    package var loop: Bool?

    /// The device, with its script read from `folder` when its path is relative. Blocking.
    package func spec(relativeTo folder: URL) throws(ScanBridgeError) -> MockDeviceSpec {
        var parsed: MockScript?
        if let script {
            let url = script.hasPrefix("/") ? URL(fileURLWithPath: script) : folder.appendingPathComponent(script)
            let source: String
            do {
                source = try String(contentsOf: url, encoding: .utf8)
            } catch {
                throw .invalidParams(
                    "cannot read the mock script \(url.path): \(error.localizedDescription)", field: "mock.script")
            }
            do throws(CodeError) {
                parsed = try MockScript(parsing: source, name: url.lastPathComponent)
            } catch {
                throw .invalidParams(error.message, field: "mock.script")
            }
        }
        do throws(ScanBridgeError) {
            return try MockDeviceSpec(kind: kind, id: id, name: name, script: parsed, loop: loop ?? false)
        } catch {
            throw .invalidParams("mock device \(id ?? kind.rawValue): \(error.message)", field: "mock")
        }
    }
}
