import ScanBridgeCore
import ScanBridgeModel
import Testing

@Suite("Feedback verdicts")
struct FeedbackVerdictTests {
    @Test(
        "every status docs/protocol.md names has its verdict",
        arguments: [
            ("identified", FeedbackVerdict.accepted), ("linked", .accepted), ("found", .accepted),
            ("unknown", .refused), ("blocked", .refused), ("inactive", .refused), ("conflict", .refused),
            ("not_found", .refused), ("invalid", .refused), ("error", .refused), ("timeout", .refused),
            ("unhandled", .read), ("a-plugin-word", .read),
        ])
    func verdict(status: String, verdict: FeedbackVerdict) {
        #expect(FeedbackVerdict(Resolution(handler: "any", status: status)) == verdict)
    }
}
