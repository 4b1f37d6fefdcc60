import FuzzSupport

@testable import DriverKit

/// A keyboard-wedge device's keys, as the assembler gets them from the key decoder: each
/// pair of input bytes is one event (a character, a key with no character, a terminator, a
/// pause that ends the burst, dropped events) and the time since the last. Any sequence
/// gives scans, human typing and drops, never a crash, and no scan over the limit.
enum FuzzKeystrokes: FuzzTarget {
    static func test(_ bytes: UnsafeBufferPointer<UInt8>) {
        var input = FuzzInput(bytes)
        var settings = KeystrokeAssembler.Settings()
        settings.maxLength = Int(input.byte()) + 1
        settings.minUnterminatedLength = Int(input.byte() % 8)
        var assembler = KeystrokeAssembler(settings: settings)
        var time = Duration.zero
        var outputs: [KeystrokeAssembler.Output?] = []
        while !input.isEmpty {
            let event = input.byte()
            time += .milliseconds(Int(input.byte()))
            switch event % 8 {
            case 0: outputs.append(assembler.unmappedKey(UInt16(event), at: time))
            case 1: outputs.append(assembler.terminator(at: time))
            case 2: outputs.append(assembler.flush(at: time))
            case 3: outputs.append(assembler.dropped())
            default: outputs.append(assembler.character(String(UnicodeScalar(event)), at: time))
            }
        }
        outputs.append(assembler.flush(at: time + .seconds(10)))
        for case .scan(let text, _) in outputs.compactMap({ $0 }) {
            fuzzCheck(text.count <= settings.maxLength, "a scan of \(text.count) characters, over \(settings.maxLength)")
        }
    }
}
