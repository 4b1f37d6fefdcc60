import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// The `scanbridge` CLI as a shell script uses it: exit statuses, --version, --json, no
/// escapes off a terminal, watch across a daemon restart, doctor for the drivers that run.
@Suite("The CLI in scripts end to end", .heavy, .timeLimit(.minutes(5)))
struct ScriptingTests {
    /// `util-linux`'s script(1), which runs a command on a pseudo-terminal.
    static let script = "/usr/bin/script"

    /// Whether `output` has exactly one JSON value (whitespace around it aside).
    static func parsesAsOneJSONValue(_ output: String) -> Bool {
        (try? JSONValue(parsing: Array(output.utf8))) != nil
    }

    @Test func exitStatusesTellTheOutcomesApart() async throws {
        // No daemon at the socket: 2, whatever the command.
        let stopped = try DaemonHarness()
        let file = try stopped.write("catalog.csv", "name,price,sku\nTea,1.00,SKU1\n")
        for command in [["devices"], ["call", "bridge.hello"], ["watch"], ["products", "import", file], ["lookup", "1"]] {
            let result = try await run("scanbridge", command + ["--socket", stopped.socketPath])
            #expect(result.status == 2, "\(command): \(result.err)")
            #expect(result.err.contains(stopped.socketPath) && result.out.isEmpty, "\(command): \(result.err)")
        }

        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        let socket = ["--socket", daemon.socketPath]
        // A negative answer: 1.
        let notFound = try await run("scanbridge", ["lookup", "5901234123457"] + socket)
        #expect(notFound.status == 1 && notFound.err.contains("no product or order"), "\(notFound.err)")
        let badParams = try await run("scanbridge", ["call", "scan.inject", #"{"device": "mock:till-1"}"#] + socket)
        #expect(badParams.status == 1 && badParams.err.contains("error -32602"), "\(badParams.err)")
        let unknown = try await run("scanbridge", ["mock", "detach", "no-such"] + socket)
        #expect(unknown.status == 1 && unknown.err.contains("error -32001"), "\(unknown.err)")
        // Usage: 64, before the daemon is asked anything.
        for command in [["devices", "--bogus"], ["products", "import", file, "--batch", "0"], ["call", "x", "not json"]] {
            let result = try await run("scanbridge", command + socket)
            #expect(result.status == 64, "\(command): \(result.err)")
        }
        // Done: 0.
        #expect(try await run("scanbridge", ["devices"] + socket).status == 0)
    }

    @Test(.enabled(if: AnotherUser.unavailableReason == nil, Comment(rawValue: AnotherUser.unavailableReason ?? "")))
    func aRoleRefusalIsStatus3() async throws {
        let daemon = try await startDaemon(
            ["--mock", "barcode:till-1"], config: "socket_group: nogroup\nroles:\n  reader_groups: [nogroup]\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: daemon.directory.path)
        let file = try daemon.write("catalog.csv", "name,price,sku\nTea,1.00,SKU1\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        let socket = ["--socket", daemon.socketPath]

        let allowed = try await run("scanbridge", ["devices"] + socket, prefix: RolesTests.asNobody)
        #expect(allowed.status == 0, "\(allowed.err)")
        for command in [["inject", "till-1", "123"], ["call", "products.upsert", #"{"product": {}}"#], ["tokens", "list"]] {
            let result = try await run("scanbridge", command + socket, prefix: RolesTests.asNobody)
            #expect(result.status == 3 && result.err.contains("error -32003"), "\(command): \(result.err)")
        }
        let imported = try await run("scanbridge", ["products", "import", file, "--json"] + socket, prefix: RolesTests.asNobody)
        #expect(imported.status == 3, "\(imported.err)")
        let outcome = try JSONValue(parsing: Array(imported.out.utf8))
        #expect(outcome["error"]?["code"]?.intValue == -32003 && outcome["complete"]?.boolValue == false, "\(imported.out)")

        // A socket whose mode keeps the user out: 3 too, since trying again will not help.
        let closed = try await startDaemon(["--mock", "barcode:till-1"])
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: closed.directory.path)
        let shut = try await run("scanbridge", ["devices", "--socket", closed.socketPath], prefix: RolesTests.asNobody)
        #expect(shut.status == 3 && shut.err.contains("may not connect"), "\(shut.err)")

        // A user in no role group is refused as it connects: 3 too.
        let outsider = try await startDaemon(["--mock", "barcode:till-1"], config: "socket_group: nogroup\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: outsider.directory.path)
        let hello = try await run(
            "scanbridge", ["call", "bridge.hello", "--socket", outsider.socketPath], prefix: RolesTests.asNobody)
        #expect(hello.status == 3 && hello.err.contains("-32003"), "\(hello.err)")
    }

    @Test func versionIsTheDaemons() async throws {
        let daemon = try await startDaemon()
        let client = try await daemon.connect()
        let hello = try await client.call("bridge.hello")
        await client.close()
        let cli = try await run("scanbridge", ["--version"])
        let server = try await run("scanbridged", ["--version"])
        #expect(cli.status == 0 && server.status == 0)
        #expect(!cli.out.isEmpty && cli.out == server.out, "\(cli.out) \(server.out)")
        #expect(cli.out == (hello["version"]?.stringValue ?? "?") + "\n", "\(cli.out) \(hello)")
    }

    /// Every command that prints a result prints one JSON value with --json, and nothing else
    /// on standard output, a negative answer included.
    @Test func jsonOnEveryCommandIsOneValue() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        let socket = ["--socket", daemon.socketPath, "--json"]
        let catalog = try daemon.write("catalog.csv", "name,price,sku\nTea,1.00,SKU1\nBad,x,SKU2\n")
        let secretFile = daemon.directory.appendingPathComponent("secret").path
        let orders = try daemon.write("orders.csv", "id,reference,status,clientName\nord_1,RM-1,open,Ada\n")
        // The daemon runs every driver: doctor finds problems here (no pcscd, no udev rules) or none.
        let commands: [(arguments: [String], status: Int32?)] = [
            (["devices"], 0), (["devices", "candidates"], 0), (["devices", "claim", "0627:0001"], 0),
            (["devices", "release", "0627:0001"], 0), (["mock", "attach", "nfc", "--id", "door"], 0),
            (["inject", "till-1", "5901234123457"], 0), (["inject", "door", "--uid", "04A1B2C3D4E5F6"], 0),
            (["mock", "detach", "door"], 0), (["call", "bridge.hello"], 0), (["lookup", "SKU1"], 1),
            (["products", "import", catalog], 1), (["lookup", "SKU1"], 0), (["orders", "import", orders], 0),
            (["customers", "set", "rAda", "--name", "Ada"], 0), (["customers", "show", "rAda"], 0),
            (["cards", "link", "04A1B2C3D4E5F6", "rAda"], 0), (["cards", "list"], 0),
            (["cards", "block", "04A1B2C3D4E5F6"], 0), (["cards", "unblock", "04A1B2C3D4E5F6"], 0),
            (["cards", "unlink", "04A1B2C3D4E5F6"], 0), (["customers", "erase", "rAda"], 0),
            (["tokens", "create", "--name", "till", "--role", "reader"], 0),
            (["tokens", "create", "--name", "till 2", "--role", "reader", "--secret-file", secretFile], 0),
            (["tokens", "list"], 0),
            (["doctor"], nil),
        ]
        for (arguments, status) in commands {
            let result = try await run("scanbridge", arguments + socket)
            #expect(result.status == status ?? min(result.status, 1), "\(arguments): \(result.err)")
            #expect(Self.parsesAsOneJSONValue(result.out), "\(arguments): \(result.out)")
        }
        let imported = try JSONValue(
            parsing: Array(try await run("scanbridge", ["products", "import", catalog] + socket).out.utf8))
        #expect(imported["imported"]?.intValue == 1 && imported["skipped"]?.intValue == 1)
        #expect(imported["complete"]?.boolValue == true && imported["source"]?.stringValue == catalog)
    }

    /// Off a terminal nothing carries an escape; on one, colour shows unless NO_COLOR is set,
    /// and an import shows its progress unless --json.
    @Test func escapesOnlyOnATerminalWithoutNoColor() async throws {
        let daemon = try await startDaemon(["--drivers", "mock", "--mock", "barcode:till-1"])
        let socket = ["--socket", daemon.socketPath]
        for command in [["doctor"], ["lookup", "404"], ["call", "nope.nope"], ["inject", "till-1", "1"]] {
            let result = try await run("scanbridge", command + socket)
            #expect(!(result.out + result.err).contains("\u{1B}"), "\(command): \((result.out + result.err).debugDescription)")
        }

        try #require(
            FileManager.default.isExecutableFile(atPath: Self.script), "\(Self.script) (util-linux) runs a command on a terminal")
        let binary = DaemonHarness.productsDirectory.appendingPathComponent("scanbridge").path
        func onATerminal(_ command: String) async throws -> String {
            try await Spawned(command: [Self.script, "-qec", command, "/dev/null"]).finish().out
        }
        // Whatever NO_COLOR the tests run with, each case sets its own.
        let doctor = "\(binary) doctor --socket \(daemon.socketPath)"
        let coloured = try await onATerminal("/usr/bin/env -u NO_COLOR " + doctor)
        #expect(coloured.contains("\u{1B}[32mall good\u{1B}[0m"), "\(coloured.debugDescription)")
        let plain = try await onATerminal("/usr/bin/env NO_COLOR=1 " + doctor)
        #expect(plain.contains("all good") && !plain.contains("\u{1B}"), "\(plain.debugDescription)")
        // An empty NO_COLOR does not count (no-color.org).
        #expect(try await onATerminal("/usr/bin/env NO_COLOR= " + doctor).contains("\u{1B}[32m"))

        let rows = (0..<3000).map { "Item \($0),1.00,SKU\($0)" }.joined(separator: "\n")
        let catalog = try daemon.write("catalog.csv", "name,price,sku\n" + rows + "\n")
        let shown = try await onATerminal("\(binary) products import \(catalog) --batch 10 --socket \(daemon.socketPath)")
        #expect(shown.contains("%  ") && shown.contains("rows/s") && shown.contains(" left"), "\(shown.debugDescription)")
        #expect(shown.contains("imported 3000 products"), "\(shown.debugDescription)")
        let piped = try await onATerminal(
            "cat \(catalog) | \(binary) products import - --format csv --batch 10 --socket \(daemon.socketPath)")
        #expect(piped.contains("importing: ") && !piped.contains("%  "), "\(piped.debugDescription)")
        let json = try await onATerminal("\(binary) products import \(catalog) --json --socket \(daemon.socketPath)")
        #expect(!json.contains("rows/s") && json.contains("\"imported\": 3000"), "\(json.debugDescription)")
    }

    /// watch across a daemon restart on the same socket and database: it says so, and its
    /// JSON lines have every seq once, in order.
    @Test func watchResumesAfterARestartWithNoGapAndNoDuplicate() async throws {
        let first = try await startDaemon(["--mock", "barcode:till-1"])
        // From the start of the journal, so that no scan goes before watch subscribes.
        let watch = try Spawned("scanbridge", ["watch", "--json", "--since", "0", "--socket", first.socketPath])
        try await injectConcurrently(5, into: first, text: "before")
        _ = try await watch.lines(5)
        try await first.stop()
        try await waitUntil("watch to notice; its errors: \(watch.errors)") { watch.errors.contains("daemon gone; reconnecting") }

        let second = try DaemonHarness.reusing(first, arguments: first.arguments)
        try await second.start()
        try await waitUntil("watch to reconnect; its errors: \(watch.errors)") {
            watch.errors.contains("reconnected; resuming after #5")
        }
        try await injectConcurrently(5, into: second, text: "after")
        let lines = try await watch.lines(10)
        let seqs = try lines.map { try JSONValue(parsing: Array($0.utf8))["event"]?["seq"]?.intValue ?? -1 }
        #expect(seqs == Array(1...10), "\(seqs)")
        watch.interrupt()
        let ended = try await watch.finish()
        #expect(ended.out.split(separator: "\n").count == 10, "nothing printed twice: \(ended.out)")
    }

    /// A barcode-only daemon: nothing about pcscd, scanners or cameras is checked, and all is well.
    @Test func doctorChecksOnlyWhatTheDriversNeed() async throws {
        let daemon = try await startDaemon(["--drivers", "mock", "--mock", "barcode:till-1"])
        let socket = ["--socket", daemon.socketPath]
        // pcscd is pointed at nothing: were it asked, it would be a problem.
        let nowhere = ["/usr/bin/env", "PCSCLITE_CSOCK_NAME=\(daemon.directory.path)/no-pcscd.comm"]
        let result = try await run("scanbridge", ["doctor"] + socket, prefix: nowhere)
        #expect(result.status == 0, "\(result.out)\(result.err)")
        #expect(result.out.hasSuffix("all good\n") && !result.out.contains("pcscd"), "not a word of pcscd: \(result.out)")
        #expect(result.out.contains("role     admin") && result.out.contains("service  "), "\(result.out)")
        #expect(result.out.contains("database \(daemon.databasePath) mode 0600"), "\(result.out)")

        let json = try JSONValue(
            parsing: Array(try await run("scanbridge", ["doctor", "--json"] + socket, prefix: nowhere).out.utf8))
        #expect(json["ok"]?.boolValue == true && json["role"]?.stringValue == "admin")
        #expect(json["pcscd"] == .null && json["kernel"] == .null && json["scanners"] == .null && json["cameras"] == .null)
        #expect(json["database"]?["path"]?.stringValue == daemon.databasePath && json["service"]?.stringValue != nil)
    }

    /// With a scanner driver: the udev rules must be installed, a scanner maker's device that
    /// no kernel driver took (a vendor USB mode) is named with the usb driver's setting, and
    /// one whose interface another program claimed through usbfs is named too.
    @Test func doctorFindsMissingRulesAndAScannerWithoutADriver() async throws {
        let daemon = try await startDaemon(["--drivers", "evdev"])
        let rules = daemon.directory.appendingPathComponent("rules.d").path
        let usb = daemon.directory.appendingPathComponent("usb").path
        try FileManager.default.createDirectory(atPath: rules, withIntermediateDirectories: true)
        func device(_ name: String, vendor: String, product: String, driver: String?) throws {
            let folder = usb + "/" + name
            try FileManager.default.createDirectory(atPath: folder + "/" + name + ":1.0", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: usb + "/" + name + ":1.0", withDestinationPath: folder + "/" + name + ":1.0")
            for (file, value) in [("idVendor", vendor), ("idProduct", product), ("product", "Scanner \(name)")] {
                try (value + "\n").write(toFile: folder + "/" + file, atomically: false, encoding: .utf8)
            }
            for (file, value) in [("bInterfaceNumber", "00"), ("bInterfaceClass", "ff")] {
                try (value + "\n").write(toFile: folder + "/" + name + ":1.0/" + file, atomically: false, encoding: .utf8)
            }
            if let driver {
                try FileManager.default.createSymbolicLink(
                    atPath: folder + "/" + name + ":1.0/driver", withDestinationPath: "../../../bus/usb/drivers/" + driver)
            }
        }
        try device("1-2", vendor: "0c2e", product: "0b61", driver: nil)
        try device("1-3", vendor: "0c2e", product: "0b81", driver: "usbhid")
        try device("1-4", vendor: "046d", product: "c52b", driver: nil)
        try device("1-5", vendor: "0c2e", product: "0b99", driver: "usbfs")
        let doctor = ["doctor", "--socket", daemon.socketPath, "--udev-rules", rules, "--usb-devices", usb]

        let noRules = try await run("scanbridge", doctor)
        #expect(noRules.status == 1)
        #expect(noRules.out.contains("no ScanBridge udev rules are installed (looked in \(rules))"), "\(noRules.out)")

        let installed = rules + "/70-scanbridge.rules"
        try FileManager.default.copyItem(
            atPath: repositoryRoot.appendingPathComponent("udev/70-scanbridge.rules").path, toPath: installed)
        let result = try await run("scanbridge", doctor + ["--json"])
        #expect(result.status == 1)
        let json = try JSONValue(parsing: Array(result.out.utf8))
        #expect(json["scanners"]?["udevRules"]?.stringValue == installed)
        let withoutDriver = json["scanners"]?["withoutDriver"]?.arrayValue ?? []
        #expect(withoutDriver.map { $0["usb"]?.stringValue } == ["0c2e:0b61"], "\(result.out)")
        let problems = json["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(problems.count == 2, "\(problems)")
        #expect(
            problems.first?.contains("(USB 0c2e:0b61, 1-2) has no kernel driver") == true
                && problems.first?.contains("--device usb:0c2e:0b61,interface=0") == true, "\(problems)")
        #expect(
            problems.last?.contains("interface 0 of Scanner 1-5 (USB 0c2e:0b99, 1-5) is claimed by another program") == true,
            "\(problems)")
        #expect(json["scanners"]?["claimed"]?.arrayValue?.map { $0["usb"]?.stringValue } == ["0c2e:0b99"])
        #expect(json["pcscd"] == .null, "no pcsc driver runs")
    }
}
