import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// A well-behaved client beside a hostile one: a subscriber, and a till that scans on
/// `mock:till-1`. `check()` proves the hostile client has not taken its service away.
struct Bystander {
    let subscriber: ScanBridgeClient
    let till: ScanBridgeClient
    private var notifications: AsyncStream<ClientNotification>.Iterator
    /// The seq of the last scan the subscriber got: the next must follow it, none missed.
    private var lastSeq: UInt64

    /// Connects both before the hostile client starts, as a till's programs would be.
    static func connect(to daemon: DaemonHarness) async throws -> Bystander {
        let subscriber = try await daemon.connect()
        let head = try #require(try await subscriber.call("events.subscribe", ["kinds": ["barcode"]])["seq"]?.intValue)
        return Bystander(
            subscriber: subscriber, till: try await daemon.connect(),
            notifications: subscriber.notifications.makeAsyncIterator(), lastSeq: UInt64(head))
    }

    /// Scans `count` labels: each is answered, and reaches the subscriber in order with none
    /// missed and no overflow; then a request of the subscriber's own is answered.
    mutating func check(_ label: String, count: Int = 5, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for n in 0..<count {
            let event = try await till.inject(device: "mock:till-1", text: "\(label)-\(n)")
            while lastSeq < event.seq {
                // An overflow would close the subscription: no scan would come, and this fails.
                let notification = try await next("scan", from: &notifications)
                let seq = try #require(try notification.scanEvent()?.seq, "\(notification)", sourceLocation: sourceLocation)
                #expect(seq == lastSeq + 1, "the bystander's events come in order, none missed", sourceLocation: sourceLocation)
                lastSeq = seq
            }
        }
        #expect(try await subscriber.call("bridge.hello")["name"] == "scanbridge", sourceLocation: sourceLocation)
    }

    func close() async {
        await subscriber.close()
        await till.close()
    }
}
