import Testing

@testable import DriverKit

struct KeystrokeAssemblerTests {
    /// Feeds `text` one character every `gap` from `start`, then a terminator after one more gap.
    static func burst(
        _ text: String, gap: Duration, start: Duration = .zero, terminated: Bool = true,
        into assembler: inout KeystrokeAssembler
    ) -> [KeystrokeAssembler.Output] {
        var outputs: [KeystrokeAssembler.Output] = []
        var time = start
        for character in text {
            if let out = assembler.character(String(character), at: time) { outputs.append(out) }
            time += gap
        }
        if terminated, let out = assembler.terminator(at: time) { outputs.append(out) }
        return outputs
    }

    @Test func aFastBurstWithATerminatorIsAScan() {
        var assembler = KeystrokeAssembler()
        #expect(Self.burst("4006381333931", gap: .milliseconds(4), into: &assembler) == [.scan("4006381333931", unmapped: [])])
        #expect(assembler.deadline == nil)
    }

    @Test func aStrayTerminatorIsNothing() {
        var assembler = KeystrokeAssembler()
        #expect(assembler.terminator(at: .seconds(1)) == nil)
    }

    @Test func aPersonTypingIsNotAScan() {
        var assembler = KeystrokeAssembler()
        #expect(Self.burst("1234", gap: .milliseconds(80), into: &assembler) == [.humanTyping(length: 4)])
        // Slower than the idle timeout: each key ends the one before it.
        var slow = KeystrokeAssembler()
        #expect(Self.burst("12", gap: .milliseconds(300), into: &slow) == [.humanTyping(length: 1), .humanTyping(length: 1)])
    }

    @Test func anUnterminatedBurstIsFlushedAtItsDeadline() {
        var assembler = KeystrokeAssembler()
        #expect(Self.burst("ABC-123", gap: .milliseconds(5), terminated: false, into: &assembler).isEmpty)
        #expect(assembler.deadline == .milliseconds(30 + 100))
        #expect(assembler.flush(at: .milliseconds(131)) == .scan("ABC-123", unmapped: []))
        #expect(assembler.flush(at: .milliseconds(500)) == nil)
        // Three characters are a stray keypress, not a scan.
        var short = KeystrokeAssembler()
        _ = Self.burst("AB1", gap: .milliseconds(5), terminated: false, into: &short)
        #expect(short.flush(at: .seconds(1)) == .humanTyping(length: 3))
    }

    @Test func aPauseEndsTheBurstBeforeTheNextScan() {
        var assembler = KeystrokeAssembler()
        _ = Self.burst("12345", gap: .milliseconds(5), terminated: false, into: &assembler)
        // The next label starts a second later, recorded with no idle flush in between.
        let outputs = Self.burst("67890", gap: .milliseconds(5), start: .seconds(1), into: &assembler)
        #expect(outputs == [.scan("12345", unmapped: []), .scan("67890", unmapped: [])])
    }

    @Test func anOverlongBurstIsCutAndReported() {
        var assembler = KeystrokeAssembler()
        let outputs = Self.burst(String(repeating: "7", count: 10_001), gap: .microseconds(100), into: &assembler)
        #expect(outputs == [.tooLong(length: 10_001)])
        #expect(
            Self.burst("5901234123457", gap: .milliseconds(2), start: .seconds(10), into: &assembler)
                == [.scan("5901234123457", unmapped: [])])
    }

    @Test func unmappedKeysTravelWithTheScan() {
        var assembler = KeystrokeAssembler()
        _ = assembler.character("1", at: .zero)
        _ = assembler.unmappedKey(59, at: .milliseconds(2))
        _ = assembler.character("2", at: .milliseconds(4))
        #expect(assembler.terminator(at: .milliseconds(6)) == .scan("12", unmapped: [59]))
        _ = assembler.unmappedKey(60, at: .seconds(1))
        #expect(assembler.terminator(at: .seconds(1) + .milliseconds(2)) == .scan("", unmapped: [60]))
    }

    @Test func droppedEventsMakeTheBurstIncomplete() {
        var assembler = KeystrokeAssembler()
        _ = Self.burst("40063", gap: .milliseconds(3), terminated: false, into: &assembler)
        #expect(assembler.dropped() == .incomplete(length: 5))
        #expect(assembler.dropped() == nil)
        #expect(
            Self.burst("4006381333931", gap: .milliseconds(3), start: .seconds(2), into: &assembler)
                == [.scan("4006381333931", unmapped: [])])
    }
}
