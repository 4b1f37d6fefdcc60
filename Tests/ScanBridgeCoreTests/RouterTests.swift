import Foundation
import ScanBridgeCore
import ScanBridgeModel
import Testing

struct StubHandler: ScanHandler {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "the catalog is offline" }
    }

    let name: String
    let priority: Int
    var accepting: @Sendable (ScanEvent) -> Bool = { _ in true }
    var fails = false

    func accepts(_ event: ScanEvent) -> Bool { accepting(event) }

    func resolve(_ event: ScanEvent) async throws -> Resolution {
        if fails { throw Failure() }
        // The router sets the handler name, whatever the handler says.
        return Resolution(handler: "ignored", status: "found", details: ["by": .string(name)])
    }
}

@Suite("Router")
struct RouterTests {
    @Test("handlers are ordered by priority, highest first")
    func priorityOrder() {
        let router = Router(handlers: [StubHandler(name: "low", priority: 0), StubHandler(name: "high", priority: 10)])
        router.register(StubHandler(name: "mid", priority: 5))
        router.register(StubHandler(name: "negative", priority: -1))
        #expect(router.handlerNames == ["high", "mid", "low", "negative"])
    }

    @Test("equal priorities keep registration order")
    func equalPriority() {
        let router = Router()
        for name in ["a", "b", "c"] { router.register(StubHandler(name: name, priority: 0)) }
        router.register(StubHandler(name: "first", priority: 1))
        for name in ["d", "e"] { router.register(StubHandler(name: name, priority: 0)) }
        #expect(router.handlerNames == ["first", "a", "b", "c", "d", "e"])
    }

    @Test("the first accepting handler resolves, with its name")
    func firstAcceptingWins() async {
        let router = Router(handlers: [
            StubHandler(name: "nfc-only", priority: 10, accepting: { $0.kind == .nfc }),
            StubHandler(name: "ean", priority: 5, accepting: { $0.symbology == "ean-13" }),
            StubHandler(name: "anything", priority: 0),
        ])
        let resolution = await router.resolve(scanEvent())
        #expect(resolution.handler == "ean")
        #expect(resolution.status == "found")
        #expect(resolution.details["by"] == .string("ean"))

        let other = await router.resolve(scanEvent(symbology: "qr", text: "ORDER:1"))
        #expect(other.handler == "anything")
    }

    @Test("no accepting handler gives unhandled")
    func unhandled() async {
        let empty = Router()
        #expect(await empty.resolve(scanEvent()) == .unhandled)
        let picky = Router(handlers: [StubHandler(name: "nfc-only", priority: 0, accepting: { $0.kind == .nfc })])
        let resolution = await picky.resolve(scanEvent())
        #expect(resolution.handler == nil)
        #expect(resolution.status == "unhandled")
    }

    @Test("a throwing handler gives an error resolution, not a lost event")
    func throwingHandler() async {
        let router = Router(handlers: [
            StubHandler(name: "broken", priority: 1, fails: true),
            StubHandler(name: "fallback", priority: 0),
        ])
        let resolution = await router.resolve(scanEvent())
        #expect(resolution.handler == "broken")
        #expect(resolution.status == "error")
        #expect(resolution.details["message"] == .string("the catalog is offline"))
    }

    @Test("an unregistered handler no longer resolves")
    func unregister() async {
        let router = Router()
        let first = router.register(StubHandler(name: "plugin", priority: 5))
        router.register(StubHandler(name: "builtin", priority: 0))
        #expect(await router.resolve(scanEvent()).handler == "plugin")
        router.unregister(first)
        #expect(router.handlerNames == ["builtin"])
        #expect(await router.resolve(scanEvent()).handler == "builtin")
        router.unregister(first)  // twice is harmless
        #expect(router.handlerNames == ["builtin"])
    }

    @Test("registrations of the same handler twice are distinct")
    func distinctRegistrations() {
        let router = Router()
        let a = router.register(StubHandler(name: "x", priority: 0))
        let b = router.register(StubHandler(name: "x", priority: 0))
        #expect(a != b)
        router.unregister(a)
        #expect(router.handlerNames == ["x"])
    }
}

@Suite("HandlerMatch")
struct HandlerMatchTests {
    @Test func matchesAll() {
        #expect(HandlerMatch().accepts(scanEvent()))
    }

    @Test func kinds() {
        let match = HandlerMatch(kinds: [.nfc, .qr])
        #expect(!match.accepts(scanEvent(kind: .barcode)))
        #expect(match.accepts(scanEvent(kind: .qr)))
    }

    @Test func symbologies() {
        let match = HandlerMatch(symbologies: ["ean-13", "upc-a"])
        #expect(match.accepts(scanEvent(symbology: "ean-13")))
        #expect(!match.accepts(scanEvent(symbology: "qr")))
    }

    @Test func pattern() throws {
        let match = HandlerMatch(pattern: try TextPattern("^ORDER:", matching: .anywhere))
        #expect(match.accepts(scanEvent(symbology: "qr", text: "ORDER:ord_1")))
        #expect(!match.accepts(scanEvent(symbology: "qr", text: "DEVICE:dev_1")))
    }

    @Test func allConditionsMustHold() throws {
        let match = HandlerMatch(kinds: [.qr], symbologies: ["qr"], pattern: try TextPattern("[0-9]+", matching: .anywhere))
        #expect(match.accepts(scanEvent(kind: .qr, symbology: "qr", text: "ord 12")))
        #expect(!match.accepts(scanEvent(kind: .barcode, symbology: "qr", text: "ord 12")))
        #expect(!match.accepts(scanEvent(kind: .qr, symbology: "qr", text: "ord")))
    }
}
