import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// `scanbridge doctor` against a real private pcscd with vpcd readers and a real daemon.
@Suite(
    "scanbridge doctor",
    .enabled(
        if: TestEnvironment.runs(unless: PCSCStack.unavailableReason),
        "needs pcscd, vsmartcard-vpcd and root (scripts/deps.sh test)"),
    .heavy, .timeLimit(.minutes(5))
)
struct DoctorCommandTests {
    /// Runs `scanbridge doctor` against `stack`'s pcscd, with a `/proc/modules` of `modules`.
    static func doctor(_ stack: PCSCStack, socket: String, modules: String = "", json: Bool = false) async throws -> CommandResult
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scanbridge-doctor-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let modulesPath = folder.appendingPathComponent("modules").path
        try modules.write(toFile: modulesPath, atomically: true, encoding: .utf8)
        return try await run(
            "scanbridge", ["doctor", "--socket", socket, "--proc-modules", modulesPath] + (json ? ["--json"] : []),
            prefix: ["/usr/bin/env", "PCSCLITE_CSOCK_NAME=\(stack.socketPath)"])
    }

    @Test func allGoodListsTheReadersAndTheDaemonsDevices() async throws {
        let stack = try await PCSCStack()
        var (daemon, client, notifications) = try await PCSCEndToEndTests.start(stack)
        _ = try await PCSCEndToEndTests.waitForReaders(client, count: 2)
        let tap = try VirtualCardTap(VirtualCard.type2(uid: PCSCEndToEndTests.uid), port: stack.readerPorts[1])
        defer { tap.remove() }
        // The tap journaled before the doctor asks, so no device read is waiting when it does.
        _ = try await PCSCEndToEndTests.nextScan(&notifications)

        let result = try await Self.doctor(stack, socket: daemon.socketPath, modules: "usbhid 65536 0 - Live 0x0\n")
        #expect(result.status == 0, "\(result.out)\(result.err)")
        #expect(result.out.contains("pcscd    answers on \(stack.socketPath); 2 readers"))
        #expect(result.out.contains("Virtual PCD 00 00") && result.out.contains("Virtual PCD 00 01"))
        #expect(result.out.contains("no pn533_usb, pn533, nfc module loaded"))
        #expect(result.out.contains("pcsc:Virtual_PCD_00_00") && result.out.hasSuffix("all good\n"))
        #expect(result.out.contains("journal  WAL ") && result.out.contains("; 0 device reads waiting; 0 prune and 0 checkpoint"))

        let json = try JSONValue(parsing: Array(try await Self.doctor(stack, socket: daemon.socketPath, json: true).out.utf8))
        #expect(json["ok"]?.boolValue == true && json["pcscd"]?["answers"]?.boolValue == true)
        let readers = json["pcscd"]?["readers"]?.arrayValue ?? []
        #expect(readers.compactMap { $0["name"]?.stringValue } == stack.readerNames)
        #expect(json["daemon"]?["devices"]?.arrayValue?.count == 2 && json["daemon"]?["hello"]?["drivers"] == ["pcsc"])
        #expect(json["kernel"]?["nfcModules"] == [])
        await client.close()
    }

    /// pcscd is checked because the daemon runs the pcsc driver; without a daemon it is not
    /// known to be needed, and only the daemon's absence is a problem.
    @Test func pcscdDownAndNoDaemonAreProblems() async throws {
        let stack = try await PCSCStack()
        try await stack.stop()
        let (daemon, client, _) = try await PCSCEndToEndTests.start(stack)
        let down = try await Self.doctor(stack, socket: daemon.socketPath)
        #expect(down.status == 1)
        #expect(down.out.contains("pcscd does not answer on \(stack.socketPath) (SCARD_E_NO_SERVICE"), "\(down.out)")
        #expect(down.out.contains("1 problem:"), "\(down.out)")
        await client.close()

        let missing = stack.directory.appendingPathComponent("no-daemon.sock").path
        let result = try await Self.doctor(stack, socket: missing)
        #expect(result.status == 1)
        #expect(result.out.contains("daemon   does not answer on \(missing)"), "\(result.out)")
        let pcscdLines = result.out.split(separator: "\n").filter { $0.hasPrefix("pcscd") || $0.contains("pcscd does not") }
        #expect(pcscdLines.isEmpty && result.out.contains("1 problem:"), "\(result.out)")
        // Where the gateway serves metrics is not known: a scrape config is shown as guidance, always.
        #expect(result.out.contains("- job_name: scanbridge") && result.out.contains("metrics_path: /metrics"))
        let json = try JSONValue(parsing: Array(try await Self.doctor(stack, socket: missing, json: true).out.utf8))
        #expect(json["ok"]?.boolValue == false && json["problems"]?.arrayValue?.count == 1)
        #expect(json["pcscd"] == .null && json["daemon"]?["answers"]?.boolValue == false)
        #expect(json["metrics"]?["scrapeConfig"]?.stringValue?.contains("credentials_file:") == true)
    }

    @Test func loadedPN533ModulesAreAProblemWithTheBlacklistToUse() async throws {
        let stack = try await PCSCStack()
        let (daemon, client, _) = try await PCSCEndToEndTests.start(stack)
        _ = try await PCSCEndToEndTests.waitForReaders(client, count: 2)
        let modules = "pn533_usb 20480 0 - Live 0x0\npn533 45056 1 pn533_usb, Live 0x0\nnfc 135168 1 pn533, Live 0x0\n"
        let result = try await Self.doctor(stack, socket: daemon.socketPath, modules: modules)
        #expect(result.status == 1)
        #expect(result.out.contains("kernel   loaded: pn533_usb, pn533, nfc; blacklist them with udev/blacklist-pn533.conf"))
        #expect(result.out.contains("1 problem:"))
        await client.close()
    }
}
