import Foundation
import Glibc
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// The keyboard-wedge driver in the real daemon, fed recorded `input_event` streams through
/// FIFOs named with `--device evdev:PATH` (the driver reads a FIFO as it reads a device node).
@Suite("Keyboard-wedge scanners end to end", .heavy, .timeLimit(.minutes(5)))
struct EvdevEndToEndTests {
    /// A FIFO, and a daemon reading it with `settings`.
    struct Bench {
        let daemon: DaemonHarness
        let fifo: DeviceFIFO
        let client: ScanBridgeClient
        var notifications: AsyncStream<ClientNotification>.Iterator

        init(settings: String = "") async throws {
            fifo = try DeviceFIFO(name: "scanner")
            daemon = try await startDaemon(["--drivers", "evdev", "--device", "evdev:\(fifo.path)\(settings)"])
            client = try await daemon.connect()
            // The driver reports the device from its own thread, just after the daemon is ready.
            try await waitUntil("the evdev device ready", timeout: .seconds(20)) { [client] in
                try await client.devices().first?.state == .ready
            }
            _ = try await client.call("events.subscribe", ["kinds": ["barcode"]])
            notifications = client.notifications.makeAsyncIterator()
        }

        var deviceID: String { "evdev:" + fifo.path.dropFirst().replacingOccurrences(of: "/", with: "_") }

        func play(_ recording: KeyboardRecording) async throws {
            try await fifo.write(recording.bytes)
        }

        mutating func nextScan() async throws -> ScanEvent {
            try #require(try await next("scan", from: &notifications).scanEvent())
        }
    }

    @Test func aTypedLabelIsOneResolvedBarcodeEvent() async throws {
        var bench = try await Bench()
        let devices = try await bench.client.devices()
        #expect(devices.map(\.id) == [bench.deviceID])
        #expect(devices.first?.state == .ready && devices.first?.driver == "evdev" && devices.first?.path == bench.fifo.path)

        var recording = KeyboardRecording()
        recording.type("4006381333931\n")
        try await bench.play(recording)
        let scan = try await bench.nextScan()
        #expect(scan.device == bench.deviceID && scan.driver == "evdev" && scan.kind == .barcode)
        #expect(scan.text == "4006381333931" && scan.symbology == "ean-13")
        #expect(scan.resolution.handler == "product-lookup" && scan.resolution.status == "not_found")
        await bench.client.close()
    }

    @Test func aGermanLayoutScannerAndGS1WithGroupSeparators() async throws {
        var german = try await Bench(settings: ",layout=de")
        var recording = KeyboardRecording(layout: .de)
        recording.type("Zylinder-42\n")
        try await german.play(recording)
        #expect(try await german.nextScan().text == "Zylinder-42")
        await german.client.close()

        var us = try await Bench()
        var gs1 = KeyboardRecording()
        gs1.type("]C1010950600013435210ABC1\u{1D}17251231\n")
        try await us.play(gs1)
        let scan = try await us.nextScan()
        #expect(scan.symbology == "gs1-128" && scan.aim == "]C1")
        #expect(scan.text == "010950600013435210ABC1\u{1D}17251231")
        #expect(scan.gs1 == ["01": "09506000134352", "10": "ABC1", "17": "251231"])
        await us.client.close()
    }

    /// A French (AZERTY) scanner read by a daemon told `layout=us`: the read is the garbage
    /// the US layout makes of it, never silently altered, and the device gets a hint that
    /// `devices` shows and `doctor` reports as a problem with the fix; the next scan is read too.
    @Test func aScannerSetToAnotherLayoutGetsAHint() async throws {
        var bench = try await Bench(settings: ",layout=us")
        var french = KeyboardRecording(layout: .fr)
        french.type("5901234123457\n")
        try await bench.play(french)
        // The device changes before its scan is published: a client that sees the scan sees the hint.
        let changed = try await next("device.changed", from: &bench.notifications)
        let hint = "reads look like layout fr, not us: set layout=fr"
        #expect(changed.params["device"]?["hint"] == .string(hint))
        let garbled = try await bench.nextScan()
        #expect(garbled.text == "%()!@#$!@#$%&" && garbled.device == bench.deviceID)
        #expect(try await bench.client.devices().first?.hint == hint)
        #expect(bench.daemon.log.contains("right in layout 'fr'"), "the log says which layout reads it")
        #expect(
            !bench.daemon.log.contains("5901234123457") && !bench.daemon.log.contains("%()!@#$"),
            "the log at info holds no scanned text: \(bench.daemon.log)")

        let socket = ["--socket", bench.daemon.socketPath]
        let devices = try await run("scanbridge", ["devices"] + socket)
        #expect(devices.out.contains("(hint: \(hint))"), "\(devices.out)")
        let doctor = try await run("scanbridge", ["doctor", "--proc-modules", "/dev/null"] + socket)
        #expect(doctor.status == 1)
        #expect(doctor.out.contains("- \(bench.deviceID) \(hint) (for scanners discovery finds"), "\(doctor.out)")

        var us = KeyboardRecording()
        us.type("4006381333931\n")
        try await bench.play(us)
        #expect(
            try await next("device.changed", from: &bench.notifications).params["device"]?["hint"] == nil,
            "a valid GTIN in the declared layout clears the hint")
        #expect(try await bench.nextScan().text == "4006381333931", "a later scan is not lost")
        await bench.client.close()
    }

    @Test func typingBurstsThatAreNotScansAreLeftOut() async throws {
        var bench = try await Bench()
        var recording = KeyboardRecording()
        recording.type("1234\n", gap: .milliseconds(150))  // a person typing
        recording.pause(.seconds(1))
        recording.type(String(repeating: "7", count: 10_001) + "\n", gap: .microseconds(50))  // a key held down
        recording.pause(.seconds(1))
        recording.type("400638")  // cut short by SYN_DROPPED
        recording.dropped()
        recording.event(type: 0, code: 0, value: 0)
        recording.pause(.seconds(1))
        recording.type("\n")  // a stray Enter
        recording.type("5901234123457\n")
        try await bench.play(recording)
        let scan = try await bench.nextScan()
        #expect(scan.text == "5901234123457", "only the real scan is an event")
        await bench.client.close()
    }

    @Test func anUnterminatedBurstIsAScanAfterAPause() async throws {
        var bench = try await Bench()
        var recording = KeyboardRecording()
        recording.type("ABC-1234")
        try await bench.play(recording)
        #expect(try await bench.nextScan().text == "ABC-1234")
        await bench.client.close()
    }

    @Test func theFIFOIsReadAgainAfterItsWriterCloses() async throws {
        var bench = try await Bench()
        for label in ["5901234123457", "4006381333931", "036000291452"] {
            var recording = KeyboardRecording()
            recording.type(label + "\n")
            try await bench.play(recording)
            #expect(try await bench.nextScan().text == label)
        }
        await bench.client.close()
    }

    @Test func aMissingNodeIsAnErrorUntilItAppears() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("evdev-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("later").path
        let daemon = try await startDaemon(["--drivers", "evdev", "--device", "evdev:\(path)"])
        let client = try await daemon.connect()
        let missing = try await waitFor("the device in error", timeout: .seconds(20)) {
            try await client.devices().first { $0.state == .error }
        }
        #expect(missing.error?.contains("No such file or directory") == true, "\(missing.error ?? "")")
        #expect(mkfifo(path, 0o600) == 0)
        try await waitUntil("the device ready", timeout: .seconds(20)) { try await client.devices().first?.state == .ready }
        await client.close()
    }

    @Test func theScannersSectionOfTheConfigIsChecked() async throws {
        for (config, message) in [
            ("scanners:\n  layout: xx-nope\n", "scanners: no keyboard layout 'xx-nope'"),
            ("scanners:\n  grab: sometimes\n", "expected value of type Bool. Path: scanners.grab"),
            ("scanners:\n  grabs: false\n", "unknown key 'grabs' in 'scanners'"),
            ("scanners:\n  max_gap: 500\n  idle: 100\n", "max_gap (0.5 seconds) must be shorter than idle"),
        ] {
            let harness = try DaemonHarness(arguments: ["--drivers", "evdev"])
            let path = try harness.write("scanbridge.yaml", config)
            let withConfig = try DaemonHarness.reusing(harness, arguments: ["--drivers", "evdev", "--config", path])
            await #expect(throws: (any Error).self) { try await withConfig.start() }
            #expect(withConfig.log.contains(message), "\(withConfig.log)")
        }
        let daemon = try await startDaemon(
            ["--drivers", "evdev"], config: "scanners:\n  layout: de\n  grab: false\n  claim: [\"0627:0001\"]\n  release: []\n")
        #expect(daemon.pid != nil)
    }

    @Test func badDeviceSettingsStopTheDaemonWithAClearMessage() async throws {
        for (setting, message) in [
            (",layout=xx-nope", "no keyboard layout 'xx-nope'"), (",grab=maybe", "grab takes on or off"),
            (",speed=9", "unknown setting 'speed'"),
        ] {
            let harness = try DaemonHarness(arguments: ["--drivers", "evdev", "--device", "evdev:/dev/null\(setting)"])
            await #expect(throws: (any Error).self) { try await harness.start() }
            let log = (try? String(contentsOfFile: harness.logPath, encoding: .utf8)) ?? ""
            #expect(log.contains(message), "\(setting): \(log)")
        }
    }
}
