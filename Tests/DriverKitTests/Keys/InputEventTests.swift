import Testing

@testable import DriverKit

struct InputEventTests {
    @Test func recordsRoundTripThroughTheKernelLayout() {
        let event = InputEvent(microseconds: 1_763_700_000_123_456, type: InputEvent.key, code: 30, value: 1)
        let bytes = event.bytes
        #expect(bytes.count == 24)
        #expect(Array(bytes[16..<24]) == [1, 0, 30, 0, 1, 0, 0, 0])
        var splitter = InputEventSplitter()
        #expect(splitter.feed(bytes) == [event])
    }

    @Test func recordsSplitAcrossReadsWaitForTheirRest() {
        let events = (0..<3).map { InputEvent(microseconds: Int64($0) * 1000, type: 1, code: UInt16(2 + $0), value: 1) }
        let stream = events.flatMap(\.bytes)
        var splitter = InputEventSplitter()
        #expect(splitter.feed(stream[0..<10]).isEmpty)
        #expect(splitter.feed(stream[10..<50]) == Array(events[0..<2]))
        #expect(splitter.feed(stream[50...]) == [events[2]])
    }
}
