import ScanBridgeCore
import ScanBridgeModel
import Testing

@testable import ScanBridgeGateway

/// The Server-Sent Events an event stream writes, byte for byte (docs/protocol.md, Web and
/// network access).
struct EventStreamSinkTests {
    @Test func aScanCarriesItsSeqAsItsID() {
        let event = JournaledEvent(seq: 42, kind: .barcode, device: "mock:till-1", json: Array(#"{"seq":42}"#.utf8))
        #expect(String(decoding: EventStreamSink.frame(event), as: UTF8.self) == "id: 42\nevent: scan\ndata: {\"seq\":42}\n\n")
    }

    @Test func noticesHaveNoIDAndGapsTheirRange() {
        let gap = String(decoding: EventStreamSink.frame(.gap(from: 3, to: 9)), as: UTF8.self)
        #expect(gap == "event: gap\ndata: {\"from\":3,\"to\":9}\n\n")
        let device = Device(id: "mock:till-1", driver: "mock", kind: .barcode, name: "Till 1", state: .ready)
        let added = String(decoding: EventStreamSink.frame(.deviceAdded(device)), as: UTF8.self)
        #expect(added.hasPrefix("event: device.added\ndata: {") && added.hasSuffix("}\n\n"))
        #expect(!added.contains("id:") && added.contains(#""id":"mock:till-1""#))
        #expect(added.filter { $0 == "\n" }.count == 3, "the JSON is on one data line")
        #expect(String(decoding: EventStreamSink.keepAlive, as: UTF8.self) == ": keep-alive\n\n")
    }
}
