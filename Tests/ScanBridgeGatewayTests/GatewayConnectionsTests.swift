import ScanBridgeServer
import Testing

@testable import ScanBridgeGateway

/// What `GatewayConnections` bounds across a token's connections.
struct GatewayConnectionsTests {
    let connections = GatewayConnections(
        limit: 256, limitPerAddress: 64, streamsPerToken: 32, callsPerToken: 4096, bodyCapacity: 1 << 20,
        answerBytesPerToken: 65_536, metrics: .none)

    /// Answers over `POST /v1/rpc` their clients have not read count against their token, as
    /// a socket connection's outbox bounds its own: past the bound, the token's next call is
    /// refused before it runs; another token's is not; written answers count no more.
    @Test func aTokensUnwrittenAnswersAreBounded() {
        #expect(connections.answersHaveRoom(for: "tok_a"))
        let first = connections.claimAnswer(40_000, token: "tok_a")
        #expect(connections.answersHaveRoom(for: "tok_a"))
        let second = connections.claimAnswer(40_000, token: "tok_a")
        #expect(!connections.answersHaveRoom(for: "tok_a"), "80,000 bytes wait unwritten")
        #expect(connections.answersHaveRoom(for: "tok_b"), "another token is not held back")
        first()
        #expect(connections.answersHaveRoom(for: "tok_a"))
        second()
        #expect(connections.answersHaveRoom(for: "tok_a"))
    }

    @Test func theBodiesHeldTogetherAreBounded() {
        #expect(connections.claimBody(1 << 19))
        #expect(connections.claimBody(1 << 19))
        #expect(!connections.claimBody(1), "the capacity is spent")
        connections.releaseBody(1 << 19)
        #expect(connections.claimBody(1))
    }
}
