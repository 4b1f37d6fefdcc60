import Foundation
import ScanBridgeCore
import ScanBridgeModel
import Synchronization

/// A sink that records what a subscription hands it, with a small live queue.
final class RecordingSink: SubscriptionSink, Sendable {
    enum Message: Hashable, Sendable {
        case event(UInt64)
        case notice(SubscriptionNotice)
    }

    private struct State {
        var messages: [Message] = []
        var queued = 0
        var overflowCalls = 0
        var replayed: [UInt64] = []
    }

    /// How many live events may wait until `drain()`.
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int = .max) {
        self.capacity = capacity
    }

    func offer(_ event: JournaledEvent, for subscription: Subscription) -> Bool {
        state.withLock { state in
            guard state.queued < capacity else { return false }
            state.queued += 1
            state.messages.append(.event(event.seq))
            return true
        }
    }

    func send(_ event: JournaledEvent, for subscription: Subscription) async throws {
        state.withLock { state in
            state.messages.append(.event(event.seq))
            state.replayed.append(event.seq)
        }
    }

    func notify(_ notice: SubscriptionNotice, for subscription: Subscription) {
        state.withLock { $0.messages.append(.notice(notice)) }
    }

    func overflowed(_ subscription: Subscription) {
        state.withLock { $0.overflowCalls += 1 }
    }

    /// The client read everything queued.
    func drain() {
        state.withLock { $0.queued = 0 }
    }

    var messages: [Message] { state.withLock { $0.messages } }
    var overflowCalls: Int { state.withLock { $0.overflowCalls } }
    var replayed: [UInt64] { state.withLock { $0.replayed } }

    var eventSeqs: [UInt64] {
        messages.compactMap { if case .event(let seq) = $0 { seq } else { nil } }
    }

    var notices: [SubscriptionNotice] {
        messages.compactMap { if case .notice(let notice) = $0 { notice } else { nil } }
    }
}

func journaled(_ seq: UInt64, kind: DeviceKind = .barcode, device: String = "mock:barcode-1") -> JournaledEvent {
    JournaledEvent(seq: seq, kind: kind, device: device, json: Array("{\"seq\":\(seq)}".utf8))
}

func scanEvent(
    kind: DeviceKind = .barcode, device: String = "mock:barcode-1", symbology: String = "ean-13",
    text: String = "5901234123457"
) -> ScanEvent {
    ScanEvent(
        id: UUID().uuidString, time: Date(), device: device, driver: "mock", kind: kind, symbology: symbology,
        text: text)
}

func barcodeRead(_ text: String, device: String = "mock:barcode-1", kind: DeviceKind = .barcode) -> RawRead {
    RawRead(device: device, driver: "mock", kind: kind, text: text)
}

func device(
    _ id: String = "mock:barcode-1", kind: DeviceKind = .barcode, name: String = "Scanner",
    state: Device.State = .ready
) -> Device {
    Device(id: id, driver: "mock", kind: kind, name: name, state: state)
}

/// Records the seqs a journal commits, in order.
final class RecordingCommits: Sendable {
    private let state = Mutex<[UInt64]>([])
    func add(_ events: [JournaledEvent]) { state.withLock { $0 += events.map(\.seq) } }
    var seqs: [UInt64] { state.withLock { $0 } }
}
