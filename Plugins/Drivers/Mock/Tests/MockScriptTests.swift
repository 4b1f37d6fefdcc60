import MockDriver
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel
import Testing

@Suite("MockScript")
struct MockScriptTests {
    @Test("the documented example")
    func example() throws {
        let script = try MockScript(
            parsing: """
                # wait  what
                1.5     5901234123457
                0.8     uid=04A1B2C3D4E5F6
                2       symbology=qr ORDER:ord_1001
                """)
        #expect(script.steps.count == 3)
        #expect(script.steps[0].delay == .milliseconds(1500))
        #expect(script.steps[0].text == "5901234123457")
        #expect(script.steps[0].uid == nil)
        #expect(script.steps[0].symbology == nil)
        #expect(script.steps[1].delay == .milliseconds(800))
        #expect(script.steps[1].uid == [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6])
        #expect(script.steps[1].text == nil)
        #expect(script.steps[2].delay == .seconds(2))
        #expect(script.steps[2].symbology == "qr")
        #expect(script.steps[2].text == "ORDER:ord_1001")
    }

    @Test(
        "delays",
        arguments: [
            ("0 x", Duration.zero), ("0.01 x", .milliseconds(10)), ("1 x", .seconds(1)), ("2.25 x", .milliseconds(2250)),
            ("0.0004 x", .zero), ("   3 x", .seconds(3)), ("\t0.5\tx", .milliseconds(500)), ("1e1 x", .seconds(10)),
        ])
    func delays(_ line: String, delay: Duration) throws {
        #expect(try MockScript(parsing: line).steps.first?.delay == delay)
    }

    @Test(
        "text keeps its inner spaces and loses the outer ones",
        arguments: [
            ("0 hello world", "hello world"),
            ("0    two   spaces  inside   ", "two   spaces  inside"),
            ("0 # not a comment here", "# not a comment here"),
            ("0 symbology=code-128  ABC 123 ", "ABC 123"),
            ("0 https://example.com/orders/1?x=a b", "https://example.com/orders/1?x=a b"),
        ])
    func text(_ line: String, text: String) throws {
        #expect(try MockScript(parsing: line).steps.first?.text == text)
    }

    @Test(
        "uid= takes every UID spelling",
        arguments: [
            "0 uid=04A1B2C3", "0 uid=04:a1:b2:c3", "0 uid=04-A1-B2-C3", "0    uid=04a1b2c3   ",
        ])
    func uid(_ line: String) throws {
        let step = try #require(try MockScript(parsing: line).steps.first)
        #expect(step.uid == [0x04, 0xA1, 0xB2, 0xC3])
        #expect(step.text == nil)
    }

    @Test("symbology= and uid= in either order, with text after")
    func options() throws {
        let script = try MockScript(
            parsing: """
                0 symbology=iso15693 uid=E004015012345678
                0 uid=E004015012345678 symbology=iso15693
                0 uid=04A1B2C3 card label
                """)
        for step in script.steps.prefix(2) {
            #expect(step.symbology == "iso15693")
            #expect(step.uid == [0xE0, 0x04, 0x01, 0x50, 0x12, 0x34, 0x56, 0x78])
        }
        #expect(script.steps[2].uid == [0x04, 0xA1, 0xB2, 0xC3])
        #expect(script.steps[2].text == "card label")
    }

    @Test("comments and blank lines are skipped")
    func commentsAndBlanks() throws {
        let script = try MockScript(parsing: "\n# first\n   # indented comment\n\n   \n0.1 a\n\n#\n0.2 b\n")
        #expect(script.steps.map(\.text) == ["a", "b"])
    }

    @Test("CRLF line ends work like LF")
    func crlf() throws {
        let script = try MockScript(parsing: "# demo\r\n0.1 a\r\n0.2 uid=04A1B2C3\r\n\r\n0.3 b c\r\n")
        #expect(script.steps.count == 3)
        #expect(script.steps.map(\.text) == ["a", nil, "b c"])
        #expect(script.steps[1].uid == [0x04, 0xA1, 0xB2, 0xC3])
        #expect(script.steps.map(\.delay) == [.milliseconds(100), .milliseconds(200), .milliseconds(300)])
    }

    @Test(
        "errors name the line",
        arguments: [
            ("0 ok\nsoon 123", "script line 2: start with the seconds to wait"),
            ("# c\n\n-1 x", "script line 3: start with the seconds to wait"),
            ("86400 x", "script line 1: start with the seconds to wait"),
            ("nan x", "script line 1: start with the seconds to wait"),
            ("0 a\n0 b\n0 c\n1.5", "script line 4: say what is scanned"),
            ("1 symbology=qr", "script line 1: say what is scanned"),
            ("0 uid=04A1B", "script line 1: '04A1B' is not a card UID"),
            ("0 x\n0 uid=010203", "script line 2: a card UID has 4, 7, 8 or 10 bytes"),
            ("0 x\n0 symbology=morse x", "script line 2: unknown symbology 'morse'"),
        ])
    func errors(_ source: String, message: String) {
        #expect {
            try MockScript(parsing: source)
        } throws: { error in
            ((error as? CodeError)?.message ?? "").hasPrefix(message)
        }
    }

    @Test("a script with no steps is rejected, under its name", arguments: ["", "\n\n", "# only a comment\n"])
    func noSteps(_ source: String) {
        #expect(throws: CodeError("demo.txt has no steps")) { try MockScript(parsing: source, name: "demo.txt") }
    }

    @Test("errors use the script's name")
    func named() {
        #expect(throws: CodeError("till.script line 2: start with the seconds to wait (e.g. 1.5)")) {
            try MockScript(parsing: "0 a\nx", name: "till.script")
        }
    }
}

@Suite("MockDeviceSpec")
struct MockDeviceSpecTests {
    @Test(
        "KIND[:ID]",
        arguments: [
            ("barcode", DeviceKind.barcode, nil), ("nfc", .nfc, nil), ("qr", .qr, nil),
            ("barcode:till-1", .barcode, "till-1"), ("nfc:door:2", .nfc, "door:2"),
        ] as [(String, DeviceKind, String?)])
    func parses(_ option: String, kind: DeviceKind, id: String?) throws {
        let spec = try MockDeviceSpec(option: option)
        #expect(spec.kind == kind)
        #expect(spec.id == id)
        #expect(spec.name == nil)
        #expect(spec.script == nil)
        #expect(!spec.loop)
    }

    @Test("unknown kinds are invalid params naming --mock", arguments: ["scanner", "", "BARCODE", ":till-1", "camera:x"])
    func rejects(_ option: String) {
        #expect {
            try MockDeviceSpec(option: option)
        } throws: { error in
            guard let error = error as? ScanBridgeError else { return false }
            return error.code == .invalidParams && error.field == "mock" && error.message.contains("'\(option)'")
        }
    }
}
