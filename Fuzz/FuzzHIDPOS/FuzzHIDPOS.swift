import FuzzSupport

@testable import HIDPOSDriver

/// What a HID POS scanner's device node gives: a report descriptor (its first byte's worth of
/// the input after a length byte), then reports cut from the rest, read through the layout
/// made from the descriptor and joined by the assembler. Any bytes give reads, drops or
/// errors, never a crash.
enum FuzzHIDPOS: FuzzTarget {
    static func test(_ bytes: UnsafeBufferPointer<UInt8>) {
        var input = FuzzInput(bytes)
        let descriptorBytes = input.bytes(Int(input.byte()))
        guard let descriptor = try? HIDReportDescriptor(parsing: descriptorBytes) else { return }
        for id in Set(descriptor.inputs.map(\.reportID)) { _ = descriptor.inputLength(of: id) }
        guard let layout = HIDPOSReportLayout(descriptor: descriptor) else { return }
        var assembler = HIDPOSAssembler()
        assembler.maxLength = 200
        var time = Duration.zero
        for report in input.chunks() {
            time += .milliseconds(Int(report.first ?? 0) * 4)
            guard let chunk = layout.chunk(of: report) else { continue }
            _ = assembler.add(chunk, at: time)
        }
        _ = assembler.flush()
    }
}
