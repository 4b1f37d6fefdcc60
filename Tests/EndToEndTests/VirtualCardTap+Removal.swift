import Foundation
import ScanBridgeCore
import ScanBridgeTesting

extension VirtualCardTap {
    /// Takes the card away and waits until pcscd saw it go, as `scanbridge doctor` reports.
    ///
    /// vpcd learns that a card left only when pcscd next speaks to it. A card put on the same
    /// reader before then can take the old one's place unseen (pcscd powering the old card
    /// down after its last connection makes vpcd accept the next one): no removal, no new
    /// card, no tap. Tests that tap the same reader twice in a row wait here in between.
    func remove(seenBy stack: PCSCStack, reader: Int) async throws {
        remove()
        let name = stack.readerNames[reader]
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let report = try await DoctorCommandTests.doctor(stack, socket: stack.directory.appendingPathComponent("none").path, json: true)
            let readers = try JSONValue(parsing: Array(report.out.utf8))["pcscd"]?["readers"]?.arrayValue ?? []
            if readers.contains(where: { $0["name"]?.stringValue == name && $0["state"]?.arrayValue?.contains("empty") == true }) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TimedOut(what: "pcscd to see the card leave \(name)")
    }
}
