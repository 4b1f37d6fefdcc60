import DriverKit
import Foundation
import Testing

/// `udev/70-scanbridge.rules` parses as udev reads rules (systemd's udev-rules.c: comma-
/// separated `KEY[{attr}]OP"value"` pairs, match keys with `==`/`!=`, assignments with
/// `=`/`+=`/`-=`/`:=`, GOTO to a LABEL that follows), and names the scanner makers the
/// daemon knows. Debian 12's udevadm has no `verify`, so the check is here.
@Suite("udev rules", .heavy, .timeLimit(.minutes(5)))
struct UdevRulesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let rules = root.appendingPathComponent("udev/70-scanbridge.rules")

    static let matchKeys: Set<String> = [
        "ACTION", "SUBSYSTEM", "SUBSYSTEMS", "KERNEL", "KERNELS", "DRIVER", "DRIVERS",
        "ATTR", "ATTRS", "ENV", "TAG", "TAGS", "PROGRAM", "RESULT", "TEST", "NAME", "SYMLINK",
    ]
    static let assignKeys: Set<String> = [
        "GROUP", "OWNER", "MODE", "ENV", "TAG", "SYMLINK", "NAME", "RUN", "ATTR",
        "IMPORT", "OPTIONS", "LABEL", "GOTO", "SECLABEL", "SYSCTL",
    ]

    struct Pair: Equatable {
        var key: String
        var attribute: String?
        var op: String
        var value: String
    }

    /// One rule line into its pairs; a sentence when it does not parse.
    static func parse(_ line: String) throws -> [Pair] {
        var pairs: [Pair] = []
        var rest = Substring(line)
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "\t" }
            let key = rest.prefix { $0.isUppercase || $0 == "_" }
            guard !key.isEmpty else { throw Failure("no key at '\(rest)'") }
            rest = rest.dropFirst(key.count)
            var attribute: String?
            if rest.first == "{" {
                guard let close = rest.firstIndex(of: "}") else { throw Failure("unclosed { after \(key)") }
                attribute = String(rest[rest.index(after: rest.startIndex)..<close])
                rest = rest[rest.index(after: close)...]
            }
            guard let op = ["==", "!=", "+=", "-=", ":=", "="].first(where: { rest.hasPrefix($0) }) else {
                throw Failure("no operator after \(key)")
            }
            rest = rest.dropFirst(op.count)
            guard rest.first == "\"", let end = rest.dropFirst().firstIndex(of: "\"") else {
                throw Failure("\(key): value not quoted")
            }
            let value = String(rest[rest.index(after: rest.startIndex)..<end])
            rest = rest[rest.index(after: end)...].drop { $0 == " " }
            if !rest.isEmpty {
                guard rest.first == "," else { throw Failure("expected ',' before '\(rest)'") }
                rest = rest.dropFirst()
            }
            let isMatch = op == "==" || op == "!="
            guard isMatch ? matchKeys.contains(String(key)) : assignKeys.contains(String(key)) else {
                throw Failure("\(key) cannot take \(op)")
            }
            pairs.append(Pair(key: String(key), attribute: attribute, op: op, value: value))
        }
        return pairs
    }

    static func isMatch(_ pair: Pair) -> Bool { pair.op == "==" || pair.op == "!=" }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func ruleLines() throws -> [(number: Int, text: String)] {
        try String(contentsOf: rules, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .enumerated().map { ($0.offset + 1, String($0.element).trimmingCharacters(in: .whitespaces)) }
            .filter { !$0.text.isEmpty && !$0.text.hasPrefix("#") }
    }

    @Test func everyRuleParsesAndEveryGotoHasItsLabel() throws {
        var gotos: [String] = []
        var labels: [String] = []
        for (number, text) in try Self.ruleLines() {
            let pairs: [Pair]
            do { pairs = try Self.parse(text) } catch {
                Issue.record("line \(number): \(error)")
                continue
            }
            gotos += pairs.filter { $0.key == "GOTO" }.map(\.value)
            labels += pairs.filter { $0.key == "LABEL" }.map(\.value)
            if let mode = pairs.first(where: { $0.key == "MODE" }) {
                #expect(
                    mode.value.count == 4 && mode.value.allSatisfy { ("0"..."7").contains($0) },
                    "line \(number): MODE \(mode.value)")
            }
        }
        #expect(!gotos.isEmpty && Set(gotos).isSubset(of: Set(labels)))
    }

    @Test func theRulesNameTheScannerMakersTheDaemonKnows() throws {
        let known = Set(ScannerVendors.all.map { String(format: "%04x", $0.id) })
        let lines = try Self.ruleLines().compactMap { try? Self.parse($0.text) }
        // ATTRS for a node below the USB device; ATTR for the USB device's own node.
        let vendorLists = lines.compactMap {
            $0.first { ($0.key == "ATTRS" || $0.key == "ATTR") && $0.attribute == "idVendor" }?.value
        }
        #expect(vendorLists.count == 4, "input, hidraw, tty and usb")
        for list in vendorLists { #expect(Set(list.split(separator: "|").map(String.init)) == known) }
        let assignments = lines.flatMap { $0 }.filter { $0.key == "ENV" && $0.op == "=" }.map { $0.attribute ?? "" }
        #expect(assignments.contains("ID_MM_DEVICE_IGNORE"))
    }

    /// Whether a wedge scanner's keys reach the focused window is the daemon's `grab` setting,
    /// which udev cannot know: a rule that hid the node from libinput would take the keys from
    /// a POS that reads the scanner as a keyboard under `grab: false`, and the daemon's grab
    /// hides them already when it is on (docs/architecture.md, "Drivers").
    @Test func theRulesHideNoScannerFromTheDesktop() throws {
        let lines = try Self.ruleLines().compactMap { try? Self.parse($0.text) }
        let assignments = lines.flatMap { $0 }.filter { !Self.isMatch($0) }
        let hiding = assignments.filter { (pair: Pair) -> Bool in
            let name = pair.attribute ?? ""
            return pair.key == "ENV" && ["LIBINPUT_IGNORE_DEVICE", "ID_SEAT", "ID_INPUT"].contains { name.hasPrefix($0) }
        }
        #expect(hiding.isEmpty, "\(hiding)")
        // Nothing else on the input node either (a RUN, a seat tag taken away): its group, its
        // mode and the mark that it is a scanner.
        let input = lines.filter { $0.contains(Pair(key: "SUBSYSTEM", op: "==", value: "input")) }
        #expect(input.count == 1)
        for rule in input {
            let assigned = rule.filter { !Self.isMatch($0) }.map { (pair: Pair) -> String in
                guard let attribute = pair.attribute else { return pair.key }
                return "\(pair.key){\(attribute)}"
            }
            #expect(Set(assigned) == ["GROUP", "MODE", "ENV{SCANBRIDGE_SCANNER}"], "\(assigned)")
        }
    }

    /// The nodes go to a group of their own, which only the daemon's user joins: a role group
    /// (docs/security.md "Who may connect") would let every client read the scanners' keys.
    @Test func theNodesGoToTheDeviceGroupNotARoleGroup() throws {
        let lines = try Self.ruleLines().compactMap { try? Self.parse($0.text) }
        let groups = lines.flatMap { $0 }.filter { $0.key == "GROUP" }.map(\.value)
        #expect(groups.count == 4, "input, hidraw, tty and usb")
        #expect(Set(groups) == ["scanbridge-devices"])
    }

    @Test func theCheckerRefusesBrokenRules() {
        for broken in [
            "SUBSYSTEM==input", "SUBSYSTEM==\"input\" GROUP=\"x\"", "GROUP==\"x\"", "ATTRS{idVendor==\"0c2e\"",
            "KERNEL=\"event*\"", "subsystem==\"input\"",
        ] {
            #expect(throws: Failure.self, "\(broken)") { try Self.parse(broken) }
        }
    }
}
