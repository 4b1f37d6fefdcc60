import Foundation
import Testing

@testable import DriverKit

/// A device named with `--device` by a link is the node the link leads to: discovery, for
/// every driver, leaves that node alone rather than read the device a second time.
struct NamedNodesTests {
    @Test func aNamedLinkCoversTheNodeItLeadsTo() throws {
        let folder = NSTemporaryDirectory() + "scanbridge-named-links-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data().write(to: URL(fileURLWithPath: folder + "/event7"))
        try FileManager.default.createSymbolicLink(atPath: folder + "/by-id-scanner", withDestinationPath: folder + "/event7")
        let nodes = DiscoveredReaders.namedNodes([folder + "/by-id-scanner", "/nonexistent/video9"])
        #expect(nodes.contains(folder + "/by-id-scanner") && nodes.contains("/nonexistent/video9"))
        #expect(nodes.contains { $0.hasSuffix("/event7") })
    }
}
