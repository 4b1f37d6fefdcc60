import Foundation
import ScanBridgeCore
import ScanBridgeModel
import Synchronization

/// A sink that records what a subscription hands it, with a small queue that `drain()` empties.
final class RecordingSink: SubscriptionSink, Sendable {
    enum Message: Hashable, Sendable {
        case event(UInt64)
        case notice(SubscriptionNotice)
    }

    private struct State {
        var messages: [Message] = []
        var queued = 0
        var overflows: [Int] = []
        var roomWaiters: [CheckedContinuation<Void, any Error>] = []
    }

    /// How many events may wait until `drain()`.
    let capacity: Int
    let acceptsNotices: Bool
    private let state = Mutex(State())

    init(capacity: Int = .max, acceptsNotices: Bool = true) {
        self.capacity = capacity
        self.acceptsNotices = acceptsNotices
    }

    func offer(_ event: JournaledEvent, for subscription: Subscription) -> Bool {
        state.withLock { state in
            guard state.queued < capacity else { return false }
            state.queued += 1
            state.messages.append(.event(event.seq))
            return true
        }
    }

    func waitForRoom(for subscription: Subscription) async throws {
        try await withCheckedThrowingContinuation { continuation in
            let now = state.withLock { state in
                guard state.queued >= capacity else { return true }
                state.roomWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func notify(_ notice: SubscriptionNotice, for subscription: Subscription) -> Bool {
        guard acceptsNotices else { return false }
        state.withLock { $0.messages.append(.notice(notice)) }
        return true
    }

    func overflowed(_ subscription: Subscription, dropped: Int) {
        state.withLock { $0.overflows.append(dropped) }
    }

    /// The client read everything queued.
    func drain() {
        wake(draining: true)
    }

    /// Wakes whoever waits for room, as an outbox does when a subscription is forgotten.
    func wake(draining: Bool = false) {
        let waiters = state.withLock { state in
            if draining { state.queued = 0 }
            defer { state.roomWaiters = [] }
            return state.roomWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var messages: [Message] { state.withLock { $0.messages } }
    /// The `dropped` count of each overflow.
    var overflows: [Int] { state.withLock { $0.overflows } }

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
