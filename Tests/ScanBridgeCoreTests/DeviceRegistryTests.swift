import ScanBridgeCore
import ScanBridgeModel
import Synchronization
import Testing

@Suite("DeviceRegistry")
struct DeviceRegistryTests {
    let publisher = Publisher()
    let sink = RecordingSink()
    let registry: DeviceRegistry

    init() {
        registry = DeviceRegistry(publisher: publisher)
        _ = publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: false)
    }

    @Test("a device going into error is told to the failure watcher once per fall")
    func failuresAreWatched() {
        let failed = Mutex<[String]>([])
        registry.watchFailures { device in failed.withLock { $0.append(device.error ?? "") } }
        var scanner = device("mock:till", name: "Till scanner")
        registry.update(scanner)
        scanner.state = .error
        scanner.error = "cannot open"
        registry.update(scanner)
        scanner.error = "cannot open, still"
        registry.update(scanner)
        scanner.state = .ready
        registry.update(scanner)
        scanner.state = .error
        scanner.error = "again"
        registry.update(scanner)
        #expect(failed.withLock { $0 } == ["cannot open", "again"])
    }

    @Test("added, changed, removed, and added again after a replug")
    func lifecycle() {
        let scanner = device("mock:till", name: "Till scanner")
        registry.update(scanner)
        #expect(sink.notices == [.deviceAdded(scanner)])
        #expect(registry.devices == [scanner])

        var renamed = scanner
        renamed.name = "Front till"
        registry.update(renamed)
        #expect(sink.notices.last == .deviceChanged(renamed))

        var busy = renamed
        busy.state = .busy
        busy.error = "held by another program"
        registry.update(busy)
        #expect(sink.notices.last == .deviceChanged(busy))

        registry.markGone("mock:till")
        var gone = busy
        gone.state = .gone
        gone.error = nil
        #expect(sink.notices.last == .deviceRemoved(gone))
        #expect(registry.device("mock:till") == gone)
        #expect(registry.devices == [gone])

        registry.update(scanner)
        #expect(sink.notices.last == .deviceAdded(scanner))
        #expect(sink.notices.count == 5)
        #expect(
            sink.notices == [
                .deviceAdded(scanner), .deviceChanged(renamed), .deviceChanged(busy), .deviceRemoved(gone),
                .deviceAdded(scanner),
            ])
    }

    @Test("an unchanged update announces nothing")
    func unchanged() {
        let scanner = device()
        registry.update(scanner)
        registry.update(scanner)
        #expect(sink.notices == [.deviceAdded(scanner)])
    }

    @Test("markGone of a gone or unknown device announces nothing")
    func markGoneTwice() {
        let scanner = device()
        registry.update(scanner)
        registry.markGone(scanner.id)
        registry.markGone(scanner.id)
        registry.markGone("mock:nobody")
        #expect(sink.notices.count == 2)
        #expect(registry.device("mock:nobody") == nil)
    }

    @Test("a device first reported gone is listed but not announced")
    func firstSeenGone() {
        let scanner = device(state: .gone)
        registry.update(scanner)
        #expect(sink.notices.isEmpty)
        #expect(registry.devices == [scanner])
        var back = scanner
        back.state = .ready
        registry.update(back)
        #expect(sink.notices == [.deviceAdded(back)])
    }

    @Test("devices keep the order they first appeared in")
    func order() {
        let ids = ["mock:c", "mock:a", "mock:b"]
        for id in ids { registry.update(device(id)) }
        registry.markGone("mock:c")
        registry.update(device("mock:c"))
        #expect(registry.devices.map(\.id) == ids)
    }

    @Test("notices only reach subscriptions that match the device")
    func filtered() {
        let nfcSink = RecordingSink()
        _ = publisher.subscribe(id: "s2", filter: SubscriptionFilter(kinds: [.nfc]), sink: nfcSink, replaying: false)
        let reader = device("mock:nfc-1", kind: .nfc)
        registry.update(device())
        registry.update(reader)
        registry.markGone(reader.id)
        #expect(nfcSink.notices.count == 2)
        #expect(nfcSink.notices.first == .deviceAdded(reader))
        #expect(sink.notices.count == 3)
    }

    @Test("10,000 devices that come and go under new ids leave only the latest gone listed")
    func goneDevicesAreForgottenPastALimit() {
        for index in 0..<10_000 {
            registry.update(device("mock:churn-\(index)", name: "Churn \(index)"))
            registry.markGone("mock:churn-\(index)")
        }
        let listed = registry.devices
        #expect(listed.count == registry.goneKept)
        #expect(listed.allSatisfy { $0.state == .gone })
        #expect(listed.last?.id == "mock:churn-9999", "the latest gone is still listed")
        #expect(registry.device("mock:churn-0") == nil, "the one gone longest is forgotten")
    }

    @Test("a device back before it is forgotten is no longer counted among the gone")
    func aDeviceBackIsNotForgotten() {
        let keeper = device("mock:keeper", name: "Keeper")
        registry.update(keeper)
        registry.markGone(keeper.id)
        registry.update(keeper)
        for index in 0..<(registry.goneKept + 1) {
            registry.update(device("mock:churn-\(index)", name: "Churn \(index)"))
            registry.markGone("mock:churn-\(index)")
        }
        #expect(registry.device(keeper.id)?.state == .ready)
    }
}
