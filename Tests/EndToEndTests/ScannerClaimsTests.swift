import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Testing

/// `devices.claim`, `devices.release` and `devices.candidates` through the real daemon's
/// socket and the real CLI: the operator's choices layered over the config's, kept in the
/// database across restarts. This machine has no input, hidraw or ttyACM node, so discovery
/// has no candidate here; the live grab of a claimed keyboard is tested in the hardware lab
/// (`DaemonInGuestTests`).
@Suite("Scanner claims end to end", .heavy, .timeLimit(.minutes(5)))
struct ScannerClaimsTests {
    static let config = "scanners:\n  claim: [\"0627:0001\"]\n  release: [\"0c2e:0b81\"]\n"

    @Test func claimsAndReleasesLayerOverTheConfigAndOutliveARestart() async throws {
        let daemon = try await startDaemon(["--drivers", "evdev"], config: Self.config)
        let client = try await daemon.connect()
        let start = try await client.call("devices.candidates")
        #expect(start["claimed"] == ["0627:0001"] && start["released"] == ["0c2e:0b81"])
        #expect(start["candidates"]?.arrayValue?.isEmpty == true, "no input device on this machine")

        let claimed = try await client.call("devices.claim", ["id": "EVDEV:1A2B:3C4D:Serial-7"])
        #expect(claimed["claimed"] == ["0627:0001", "evdev:1a2b:3c4d:serial-7"])
        let released = try await client.call("devices.release", ["id": "0627:0001"])
        #expect(released["claimed"] == ["evdev:1a2b:3c4d:serial-7"], "a release undoes the config's claim")
        #expect(released["released"] == ["0627:0001", "0c2e:0b81"])
        let reclaimed = try await client.call("devices.claim", ["id": "0c2e:0b81"])
        #expect(reclaimed["claimed"] == ["0c2e:0b81", "evdev:1a2b:3c4d:serial-7"] && reclaimed["released"] == ["0627:0001"])
        await client.close()

        _ = try await daemon.stop()
        try await daemon.start()
        let again = try await daemon.connect()
        let after = try await again.call("devices.candidates")
        #expect(
            after["claimed"] == ["0c2e:0b81", "evdev:1a2b:3c4d:serial-7"] && after["released"] == ["0627:0001"],
            "the operator's choices are kept in the database, over the config's")
        await again.close()
    }

    /// Admins claiming and releasing one key at once: what the drivers follow is what was
    /// saved, as a restart shows.
    @Test func concurrentChoicesLeaveTheStoreAndTheDriversAgreeing() async throws {
        let daemon = try await startDaemon(["--drivers", "evdev"], config: Self.config)
        let client = try await daemon.connect()
        _ = try await client.call("devices.claim", ["id": "1a2b:3c4d"])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask {
                    _ = try await client.call(index % 2 == 0 ? "devices.claim" : "devices.release", ["id": "1a2b:3c4d"])
                }
            }
            try await group.waitForAll()
        }
        let live = try await client.call("devices.candidates")
        await client.close()
        _ = try await daemon.stop()
        try await daemon.start()
        let again = try await daemon.connect()
        let restarted = try await again.call("devices.candidates")
        #expect(restarted["claimed"] == live["claimed"] && restarted["released"] == live["released"], "\(live) \(restarted)")
        await again.close()
    }

    @Test func badIdsAndReleasingWhatWasNeverClaimedAreRefused() async throws {
        let daemon = try await startDaemon(["--drivers", "evdev"], config: Self.config)
        let client = try await daemon.connect()
        for id in ["nope", "mock:till-1", "627:0001", "evdev:", "pcsc:Reader_00_00", "evdev:a b"] {
            let error = await expectRPCError(-32602) { _ = try await client.call("devices.claim", ["id": .string(id)]) }
            #expect(error?.data?["field"] == "id" && error?.message.contains("vvvv:pppp") == true, "\(id)")
        }
        await expectRPCError(-32602) { _ = try await client.call("devices.release", [:]) }
        let never = await expectRPCError(-32001) { _ = try await client.call("devices.release", ["id": "1234:5678"]) }
        #expect(never?.message.contains("nothing to release") == true)
        // Releasing what is released already, or claimed in the config, is fine.
        _ = try await client.call("devices.release", ["id": "0c2e:0b81"])
        _ = try await client.call("devices.release", ["id": "0627:0001"])
        #expect(try await client.call("devices.candidates")["claimed"] == [])
        // The daemon reads on.
        #expect(try await client.call("bridge.hello")["name"] == "scanbridge")
        await client.close()
    }

    @Test func withDiscoveryOffThereIsNothingToClaim() async throws {
        let daemon = try await startDaemon(["--drivers", "mock"], config: "scanners:\n  discover: false\n")
        let client = try await daemon.connect()
        await expectRPCError(-32004) { _ = try await client.call("devices.claim", ["id": "0627:0001"]) }
        await expectRPCError(-32004) { _ = try await client.call("devices.candidates") }
        await client.close()
    }

    @Test func aBadKeyInTheConfigStopsTheDaemonNamingIt() async throws {
        let harness = try DaemonHarness(arguments: ["--drivers", "evdev"])
        let path = try harness.write("scanbridge.yaml", "scanners:\n  claim: [\"honeywell\"]\n")
        let withConfig = try DaemonHarness.reusing(harness, arguments: ["--drivers", "evdev", "--config", path])
        await #expect(throws: (any Error).self) { try await withConfig.start() }
        #expect(withConfig.log.contains("scanners.claim: 'honeywell' is neither vvvv:pppp"), "\(withConfig.log)")
    }

    @Test func theCommandLine() async throws {
        let daemon = try await startDaemon(["--drivers", "evdev"], config: Self.config)
        let socket = ["--socket", daemon.socketPath]
        let claim = try await run("scanbridge", ["devices", "claim", "1a2b:3c4d"] + socket)
        #expect(claim.status == 0, "\(claim.err)")
        #expect(claim.out == "1a2b:3c4d claimed\nclaimed:  0627:0001 1a2b:3c4d\nreleased: 0c2e:0b81\n")
        let release = try await run("scanbridge", ["devices", "release", "1a2b:3c4d"] + socket)
        #expect(release.out.contains("released: 0c2e:0b81 1a2b:3c4d"), "\(release.out)")
        let candidates = try await run("scanbridge", ["devices", "candidates"] + socket)
        #expect(
            candidates.out
                == "discovery sees no keyboard, hidraw, ttyACM or video capture node\nclaimed:  0627:0001\nreleased: 0c2e:0b81 1a2b:3c4d\n"
        )
        let json = try JSONValue(
            parsing: Array(try await run("scanbridge", ["devices", "candidates", "--json"] + socket).out.utf8))
        #expect(json["candidates"] == [] && json["claimed"] == ["0627:0001"])
        let bad = try await run("scanbridge", ["devices", "claim", "nope"] + socket)
        #expect(bad.status == 1 && bad.err.contains("error -32602: 'nope' is neither vvvv:pppp"), "\(bad.err)")
        let list = try await run("scanbridge", ["devices"] + socket)
        #expect(list.status == 0 && list.out.hasPrefix("no devices"), "`scanbridge devices` lists as before: \(list.out)")
    }
}
