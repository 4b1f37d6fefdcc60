import Foundation
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// Connections are bounded in all and by user: the one past a limit gets one error line and
/// is closed, and the connections already open go on as before.
@Suite("Connection limits end to end", .heavy, .timeLimit(.minutes(5)))
struct ConnectionLimitsTests {
    static let hello = #"{"jsonrpc":"2.0","id":1,"method":"bridge.hello"}"#

    /// A connection that has been answered, so its slot is surely taken.
    static func answered(_ daemon: DaemonHarness) async throws -> RawConnection {
        let raw = try await RawConnection.connect(socketPath: daemon.socketPath)
        try await raw.send(hello)
        #expect(try await raw.nextJSON()["result"] != nil)
        return raw
    }

    /// The next connection is refused: one `-32005` line naming `reason`, then the end.
    static func expectRefused(_ daemon: DaemonHarness, naming reason: String) async throws {
        let refused = try await RawConnection.connect(socketPath: daemon.socketPath)
        let line = try await refused.nextJSON()
        #expect(line["id"] == .null && line.errorCode == -32005)
        #expect(line["error"]?["message"]?.stringValue?.contains(reason) == true, "\(line)")
        await #expect(throws: ConnectionClosed.self) { try await refused.nextJSON() }
        await refused.close()
    }

    @Test func theConnectionPastTheDaemonsLimitIsRefusedAndTheOthersGoOn() async throws {
        let daemon = try await startDaemon([], config: "server:\n  max_connections: 3\n")
        var open = [try await Self.answered(daemon), try await Self.answered(daemon), try await Self.answered(daemon)]
        try await Self.expectRefused(daemon, naming: "3 connections open")
        for raw in open {
            try await raw.send(Self.hello)
            #expect(try await raw.nextJSON()["result"] != nil)
        }
        // A slot given back is free again.
        await open.removeFirst().close()
        let again = try await Self.answeredOnceASlotIsFree(daemon)
        for raw in open + [again] { await raw.close() }
    }

    /// A connection answered once the daemon has freed a slot given back.
    static func answeredOnceASlotIsFree(_ daemon: DaemonHarness) async throws -> RawConnection {
        try await waitFor("a connection once one has closed") { () async throws -> RawConnection? in
            let raw = try await RawConnection.connect(socketPath: daemon.socketPath)
            // Refused while the daemon has not yet freed the slot: it may close before the send.
            if (try? await raw.send(Self.hello)) != nil, try await raw.nextJSON()["result"] != nil { return raw }
            await raw.close()
            return nil
        }
    }

    /// A client that opens connections until it is refused, and keeps trying, takes the free
    /// slots and nothing more: the clients already connected keep their events and answers.
    @Test func aClientTakingEveryFreeSlotLeavesTheConnectedOnesServed() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"], config: "server:\n  max_connections: 8\n")
        var bystander = try await Bystander.connect(to: daemon)
        var taken: [RawConnection] = []
        for _ in 0..<6 { taken.append(try await Self.answered(daemon)) }
        for attempt in 0..<20 {
            try await Self.expectRefused(daemon, naming: "8 connections open")
            if attempt % 5 == 4 { try await bystander.check("full-\(attempt)", count: 2) }
        }
        for raw in taken { await raw.close() }
        await bystander.close()
    }

    /// A client that sends part of a line and then nothing holds its own slot and the bytes
    /// it sent, no more: the others are served, and the slots left are all there.
    @Test func aSilentPartialLineHoldsOnlyItsOwnSlot() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"], config: "server:\n  max_connections: 4\n")
        var bystander = try await Bystander.connect(to: daemon)
        let silent = try await RawConnection.connect(socketPath: daemon.socketPath)
        try await silent.send(
            Array(#"{"jsonrpc":"2.0","id":1,"method":"bridge.hello","params":{"pad":""#.utf8)
                + Array(repeating: UInt8(ascii: "x"), count: 1_000))
        try await bystander.check("beside-silence")
        let fourth = try await Self.answered(daemon)
        try await Self.expectRefused(daemon, naming: "4 connections open")
        #expect(silent.isActive, "a silent client is not a broken one: it keeps its connection")
        try await bystander.check("still-beside-silence")
        await silent.close()
        let again = try await Self.answeredOnceASlotIsFree(daemon)
        for raw in [fourth, again] { await raw.close() }
        await bystander.close()
    }

    @Test func oneUserCannotTakeEverySlot() async throws {
        let daemon = try await startDaemon([], config: "server:\n  max_connections_per_user: 2\n")
        let open = [try await Self.answered(daemon), try await Self.answered(daemon)]
        try await Self.expectRefused(daemon, naming: "the limit for one user")
        for raw in open { await raw.close() }
    }
}
