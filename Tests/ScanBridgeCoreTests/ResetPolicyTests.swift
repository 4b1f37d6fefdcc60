import ScanBridgeCore
import Testing

struct ResetPolicyTests {
    let start = ContinuousClock.now

    /// The verdicts for failures of `ids` at `seconds` after the start, in order.
    func verdicts(_ failures: [(String, Int)], errors: Int, maxDevices: Int = 256) -> [Bool] {
        var policy = ResetPolicy(errors: errors, window: .seconds(600), maxDevices: maxDevices)
        return failures.map { id, second in policy.failed(id, at: start + .seconds(second)) }
    }

    @Test func aDeviceIsResetAfterItsErrorsWithinTheWindowAndNotAgainWithinIt() {
        let failures = [("usb:a", 0), ("usb:a", 10), ("usb:b", 11), ("usb:a", 20)] + (21..<30).map { ("usb:a", $0) }
        let expected = [false, false, false, true] + Array(repeating: false, count: 9)
        #expect(verdicts(failures, errors: 3) == expected, "each device counts its own; one reset a window")
        #expect(
            verdicts(failures + [("usb:a", 700), ("usb:a", 701), ("usb:a", 702)], errors: 3).suffix(3) == [false, false, true])
    }

    @Test func errorsFartherApartThanTheWindowNeverAddUp() {
        #expect(verdicts((0..<10).map { ("usb:a", $0 * 601) }, errors: 2).allSatisfy { !$0 })
    }

    @Test func manyDevicesAreCountedEachOnItsOwn() {
        let failures = (0..<1000).flatMap { [("usb:\($0)", $0), ("usb:\($0)", $0)] }
        #expect(verdicts(failures, errors: 2, maxDevices: 16).filter { $0 }.count == 1000)
    }
}
