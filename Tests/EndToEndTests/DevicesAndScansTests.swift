import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Testing

/// The real daemon, through its socket: devices, injected scans, unplug and replug.
@Suite("Devices and scans end to end", .heavy, .timeLimit(.minutes(5)))
struct DevicesAndScansTests {
    @Test func helloAndDevices() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1", "--mock", "nfc"])
        let client = try await daemon.connect()
        let hello = try await client.call("bridge.hello", ["client": ["name": "tests", "version": "1"]])
        #expect(hello["name"] == "scanbridge")
        #expect(hello["protocol"] == 1)
        #expect(hello["role"] == "admin")
        #expect(
            hello["drivers"] == ["mock", "pcsc", "evdev", "hidpos", "serial", "usb", "file-camera", "v4l2"],
            "every built-in driver runs without --drivers")
        let devices = try await client.devices()
        #expect(devices.map(\.id) == ["mock:till-1", "mock:nfc-1"])
        #expect(devices.allSatisfy { $0.state == .ready && $0.driver == "mock" })
        #expect(devices.map(\.kind) == [.barcode, .nfc])
        await client.close()
    }

    @Test func injectedScansReachSubscribers() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1", "--mock", "nfc:door", "--mock", "qr:cam"])
        let watcher = try await daemon.connect()
        let subscribed = try await watcher.call("events.subscribe", ["kinds": ["barcode", "nfc"]])
        #expect(subscribed["subscription"] == "s1")
        let injector = try await daemon.connect()

        let ean = try await injector.inject(device: "mock:till-1", text: "5901234123457")
        #expect(ean.seq == 1 && ean.symbology == "ean-13" && ean.aim == "]E0" && ean.kind == .barcode)
        #expect(ean.resolution.handler == "product-lookup" && ean.resolution.status == "not_found")
        let card = try await injector.inject(device: "mock:door", uid: "04-a1-b2-c3-d4-e5-f6")
        #expect(card.uid == "04A1B2C3D4E5F6" && card.uidDisplay == "04:A1:B2:C3:D4:E5:F6")
        #expect(card.symbology == "iso14443a" && card.kind == .nfc)
        let qr = try await injector.inject(device: "mock:cam", text: "ORDER:ord_1001")
        #expect(qr.symbology == "qr" && qr.kind == .qr)
        let upc = try await injector.inject(device: "mock:till-1", text: "036000291452")
        #expect(upc.symbology == "upc-a")
        let other = try await injector.inject(device: "mock:till-1", text: "5901234123450")
        #expect(other.symbology == "unknown", "a wrong check digit is not an EAN-13")

        var notifications = watcher.notifications.makeAsyncIterator()
        var seen: [ScanEvent] = []
        for _ in 0..<4 {
            seen.append(try #require(try await next("scan", from: &notifications).scanEvent()))
        }
        // The qr event (seq 3) is filtered out by kind.
        #expect(seen.map(\.seq) == [1, 2, 4, 5])
        #expect(seen.first == ean)
        await watcher.close()
        await injector.close()
    }

    @Test func unplugAndReplugKeepTheDevice() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        let client = try await daemon.connect()
        _ = try await client.call("events.subscribe", ["devices": ["mock:till-1"]])
        var notifications = client.notifications.makeAsyncIterator()

        _ = try await client.call("mock.detach", ["id": "mock:till-1"])
        let removed = try #require(try await next("device.removed", from: &notifications).device())
        #expect(removed.id == "mock:till-1" && removed.state == .gone)
        #expect(try await client.devices().first?.state == .gone, "a gone device stays listed")
        await expectRPCError(RPCError.unavailable) {
            _ = try await client.inject(device: "mock:till-1", text: "4006381333931")
        }
        // Detaching again is harmless.
        _ = try await client.call("mock.detach", ["id": "mock:till-1"])

        let attached = try await client.call("mock.attach", ["kind": "barcode", "id": "till-1"])
        #expect(attached["device"]?["id"] == "mock:till-1")
        let added = try #require(try await next("device.added", from: &notifications).device())
        #expect(added.id == "mock:till-1" && added.state == .ready)
        let event = try await client.inject(device: "mock:till-1", text: "4006381333931")
        #expect(event.device == "mock:till-1")

        let fresh = try await client.call("mock.attach", ["kind": "qr"])
        #expect(fresh["device"]?["id"] == "mock:qr-1")
        await client.close()
    }

    @Test func theMockDriverRunsOnlyWhenAskedFor() async throws {
        let plain = try await startDaemon()
        let client = try await plain.connect()
        let drivers = try #require(try await client.call("bridge.hello")["drivers"]?.arrayValue)
        #expect(!drivers.contains("mock") && drivers.contains("pcsc"), "\(drivers)")
        await expectRPCError(RPCError.unavailable) { _ = try await client.call("mock.attach", ["kind": "barcode"]) }
        await client.close()

        for (arguments, config) in [(["--mock", "barcode"], nil), ([], "drivers: [mock]\n")] as [([String], String?)] {
            let daemon = try await startDaemon(arguments, config: config)
            let asked = try await daemon.connect()
            #expect(try await asked.call("bridge.hello")["drivers"]?.arrayValue?.contains("mock") == true, "\(arguments)")
            _ = try await asked.call("mock.attach", ["kind": "qr"])
            await asked.close()
        }
    }

    @Test func scriptedMockPlaysScans() async throws {
        let harness = try DaemonHarness()
        try harness.write(
            "till.script",
            """
            # a tiny demo
            0.05  5901234123457
            0.05  symbology=code-128 SKU-001 large
            """)
        let config = try harness.write(
            "scanbridge.yaml",
            """
            mock:
              - kind: barcode
                id: till-1
                script: till.script
                loop: true
            """)
        let daemon = try DaemonHarness.reusing(harness, arguments: ["--config", config])
        try await daemon.start()
        let client = try await daemon.connect()
        _ = try await client.call("events.subscribe")
        var notifications = client.notifications.makeAsyncIterator()
        var texts: [String] = []
        for _ in 0..<4 {
            texts.append(try #require(try await next("scan", from: &notifications).scanEvent()).text)
        }
        // The script may have started before the subscription: check the loop, not the phase.
        #expect(Set(texts) == ["5901234123457", "SKU-001 large"])
        #expect(texts[0] != texts[1] && texts[0] == texts[2] && texts[1] == texts[3])
        await client.close()
    }
}
