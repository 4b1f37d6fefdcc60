import Testing

@testable import CameraDriver

struct SightingFilterTests {
    static let order = DecodedCode(symbology: "qr", aim: "]Q1", bytes: Array("RO-2024-0042".utf8))
    static let product = DecodedCode(symbology: "ean-13", aim: "]E0", bytes: Array("5901234123457".utf8))

    static func ms(_ value: Int) -> Duration { .milliseconds(value) }

    @Test func aCodeHeldInViewIsOneEvent() {
        var filter = SightingFilter(outOfView: Self.ms(1000))
        #expect(filter.frame([Self.order], at: Self.ms(0)) == [Self.order])
        for time in stride(from: 100, through: 5000, by: 100) {
            #expect(filter.frame([Self.order], at: Self.ms(time)) == [])
        }
    }

    @Test func reportedAgainOnlyAfterBeingOutOfViewLongEnough() {
        var filter = SightingFilter(outOfView: Self.ms(1000))
        _ = filter.frame([Self.order], at: Self.ms(0))
        #expect(filter.frame([], at: Self.ms(500)) == [])
        // Back after 900 ms away: still the same sighting.
        #expect(filter.frame([Self.order], at: Self.ms(900)) == [])
        #expect(filter.frame([], at: Self.ms(1500)) == [])
        #expect(filter.inView == [Self.order])
        #expect(filter.frame([], at: Self.ms(1900)) == [])
        #expect(filter.inView == [])
        #expect(filter.frame([Self.order], at: Self.ms(2000)) == [Self.order])
    }

    @Test func framesSlowerThanTheOutOfViewTimeDoNotRepeatACodeThatStayed() {
        var filter = SightingFilter(outOfView: Self.ms(200))
        #expect(filter.frame([Self.order], at: Self.ms(0)) == [Self.order])
        #expect(filter.frame([Self.order], at: Self.ms(1000)) == [])
        #expect(filter.frame([Self.order], at: Self.ms(2000)) == [])
    }

    @Test func codesComeAndGoIndependently() {
        var filter = SightingFilter(outOfView: Self.ms(300))
        #expect(filter.frame([Self.order], at: Self.ms(0)) == [Self.order])
        #expect(filter.frame([Self.order, Self.product], at: Self.ms(100)) == [Self.product])
        #expect(filter.frame([Self.product], at: Self.ms(500)) == [])
        #expect(filter.frame([Self.order, Self.product, Self.order], at: Self.ms(600)) == [Self.order])
    }

    @Test func theSameTextInAnotherSymbologyIsAnotherCode() {
        var filter = SightingFilter()
        let asCode128 = DecodedCode(symbology: "code-128", aim: "]C0", bytes: Self.order.bytes)
        #expect(filter.frame([Self.order, asCode128], at: .zero) == [Self.order, asCode128])
    }
}
