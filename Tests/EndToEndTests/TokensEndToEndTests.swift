import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Testing

/// The gateway's access tokens, managed through the real daemon's socket and the CLI.
@Suite("Access tokens end to end", .heavy, .timeLimit(.minutes(5)))
struct TokensEndToEndTests {
    @Test func anAdminCreatesListsAndRevokesTokensThatOutliveARestart() async throws {
        let daemon = try await startDaemon(["--log-level", "debug"])
        let admin = try await daemon.connect()
        let expiry = EventTime.format(Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 86_400).rounded()))
        let created = try await admin.call(
            "tokens.create",
            [
                "name": "web POS", "role": "operator", "origins": ["https://POS.example:443", "http://localhost:3000"],
                "expiresAt": .string(expiry),
            ])
        let secret = try #require(created["secret"]?.stringValue)
        #expect(secret.hasPrefix("sbt_"))
        let token = try #require(created["token"])
        let id = try #require(token["id"]?.stringValue)
        #expect(token["name"] == "web POS" && token["role"] == "operator")
        #expect(token["origins"] == ["https://pos.example", "http://localhost:3000"])
        #expect(token["expiresAt"] == .string(expiry) && token["lastUsedAt"] == .null)
        #expect(token["createdAt"]?.stringValue.flatMap(EventTime.parse) != nil)
        #expect(
            Set(token.objectValue?.keys ?? [:].keys) == ["id", "name", "role", "origins", "createdAt", "expiresAt", "lastUsedAt"])

        let forever = try await admin.call("tokens.create", ["name": "counter page", "role": "reader"])
        let aYear = forever["token"]?["expiresAt"]?.stringValue.flatMap(EventTime.parse)?.timeIntervalSinceNow
        #expect(aYear.map { abs($0 - 365 * 86_400) < 600 } == true, "the longest lifetime, a year by default")
        #expect(forever["token"]?["origins"] == [])
        await expectRPCError(-32602) {
            _ = try await admin.call(
                "tokens.create", ["name": "too long", "role": "reader", "expiresAt": "2099-01-31T18:00:00Z"])
        }

        let listed = try await admin.call("tokens.list")
        #expect(listed["tokens"]?.arrayValue?.count == 2)
        #expect(listed["tokens"]?[0] == token, "the list shows what create answered")
        #expect(!"\(listed)".contains(secret.dropFirst(4)), "never a secret")
        await admin.close()

        _ = try await daemon.stop()
        try await daemon.start()
        let again = try await daemon.connect()
        #expect(try await again.call("tokens.list")["tokens"]?.arrayValue?.count == 2, "kept across a restart")
        #expect(try await again.call("tokens.revoke", ["id": .string(id)]) == [:])
        #expect(try await again.call("tokens.list")["tokens"]?.arrayValue?.map { $0["id"] } == [forever["token"]?["id"]])
        await expectRPCError(-32001) { _ = try await again.call("tokens.revoke", ["id": .string(id)]) }
        await again.close()

        #expect(daemon.log.contains(id), "the log names the token by its id")
        #expect(!daemon.log.contains(secret.dropFirst(4).prefix(20)), "no secret in the log")
        #expect(!daemon.log.contains(forever["secret"]?.stringValue?.dropFirst(4).prefix(20) ?? "sbt_"))
    }

    @Test func aShopThatSetsNoLongestLifetimeGetsTokensThatLiveUntilRevoked() async throws {
        let gateway = try await GatewayDaemon.start(http: "  token_max_lifetime_days: 0")
        let created = try await gateway.admin.call("tokens.create", ["name": "kiosk", "role": "reader"])
        #expect(created["token"]?["expiresAt"] == .null)
        let far = try await gateway.admin.call(
            "tokens.create", ["name": "far", "role": "reader", "expiresAt": "2099-01-31T18:00:00Z"])
        #expect(far["token"]?["expiresAt"] == "2099-01-31T18:00:00.000Z")
        try await gateway.stop()
    }

    static let badParams: [(JSONValue, String)] = [
        (["role": "reader"], "name"),
        (["name": "web POS"], "role"),
        (["name": "web POS", "role": "root"], "role"),
        (["name": "web POS", "role": 2], "role"),
        (["name": .string(String(repeating: "n", count: 101)), "role": "reader"], "name"),
        (["name": "web POS", "role": "reader", "origins": "https://pos.example"], "origins"),
        (["name": "web POS", "role": "reader", "origins": ["https://pos.example/till"]], "origins[0]"),
        (["name": "web POS", "role": "reader", "origins": ["https://a.example", "pos.example"]], "origins[1]"),
        (["name": "web POS", "role": "reader", "expiresAt": "tomorrow"], "expiresAt"),
        (["name": "web POS", "role": "reader", "expiresAt": "2001-01-01T00:00:00Z"], "expiresAt"),
    ]

    @Test(arguments: badParams)
    func badParamsNameTheirField(params: JSONValue, field: String) async throws {
        let daemon = try await startDaemon()
        let admin = try await daemon.connect()
        let error = await expectRPCError(-32602) { _ = try await admin.call("tokens.create", params) }
        #expect(error?.data?["field"] == .string(field), "\(String(describing: error))")
        #expect(try await admin.call("tokens.list")["tokens"] == [], "nothing was made")
        await expectRPCError(-32602) { _ = try await admin.call("tokens.revoke", [:]) }
        await admin.close()
    }

    @Test func theCommandLineShowsTheSecretOnceOrWritesItToAFile() async throws {
        let daemon = try await startDaemon()
        let socket = ["--socket", daemon.socketPath]
        let create = try await run(
            "scanbridge",
            ["tokens", "create", "--name", "web POS", "--role", "reader", "--origin", "https://pos.example", "--expires", "30d"]
                + socket)
        #expect(create.status == 0, "\(create.err)")
        let secretLine = try #require(create.out.split(separator: "\n").first { $0.hasPrefix("secret: sbt_") })
        #expect(create.out.contains("will not be shown again"), "\(create.out)")

        let file = daemon.directory.appendingPathComponent("pos.token").path
        let toFile = try await run(
            "scanbridge", ["tokens", "create", "--name", "till 2", "--role", "operator", "--secret-file", file] + socket)
        #expect(toFile.status == 0, "\(toFile.err)")
        #expect(!toFile.out.contains("sbt_") && toFile.out.contains("will not be shown again"), "\(toFile.out)")
        let written = try String(contentsOfFile: file, encoding: .utf8)
        #expect(written.hasPrefix("sbt_") && written.utf8.count == 48, "\(written)")
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let existing = try await run(
            "scanbridge", ["tokens", "create", "--name", "till 3", "--role", "reader", "--secret-file", file] + socket)
        #expect(existing.status != 0 && existing.err.contains("must not exist"), "\(existing.err)")

        let list = try await run("scanbridge", ["tokens", "list"] + socket)
        #expect(list.status == 0, "\(list.err)")
        #expect(list.out.contains("web POS") && list.out.contains("till 2") && list.out.contains("https://pos.example"))
        #expect(!list.out.contains("till 3"), "a refused --secret-file makes no token")
        #expect(!list.out.contains("sbt_"), "\(list.out)")
        let id = try #require(list.out.split(separator: "\n").dropFirst().first?.split(separator: " ").first)
        let revoke = try await run("scanbridge", ["tokens", "revoke", String(id)] + socket)
        #expect(revoke.status == 0 && revoke.out.contains("revoked \(id)"), "\(revoke.err)")
        let after = try await run("scanbridge", ["tokens", "list", "--json"] + socket)
        #expect(!after.out.contains(String(id)) && after.out.contains("till 2"), "\(after.out)")
        let badExpiry = try await run(
            "scanbridge", ["tokens", "create", "--name", "x", "--role", "reader", "--expires", "soon"] + socket)
        #expect(badExpiry.status != 0 && badExpiry.err.contains("--expires"), "\(badExpiry.err)")
        #expect(!daemon.log.contains(String(secretLine.dropFirst("secret: sbt_".count).prefix(20))))
    }

    /// Below admin, every tokens method is forbidden. Needs root to switch users.
    @Test(
        .enabled(if: AnotherUser.unavailableReason == nil, Comment(rawValue: AnotherUser.unavailableReason ?? "")),
        arguments: ["reader_groups", "operator_groups"])
    func onlyAnAdminManagesTokens(role: String) async throws {
        let daemon = try await startDaemon([], config: "socket_group: nogroup\nroles:\n  \(role): [nogroup]\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: daemon.directory.path)
        let asNobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        let socket = ["--socket", daemon.socketPath]
        for command in [["create", "--name", "x", "--role", "reader"], ["list"], ["revoke", "tok_0000000000000000"]] {
            let result = try await run("scanbridge", ["tokens"] + command + socket, prefix: asNobody)
            #expect(result.status == 3 && result.err.contains("error -32003"), "\(role) \(command): \(result.err)")
        }
        let admin = try await daemon.connect()
        #expect(try await admin.call("tokens.list")["tokens"] == [], "nothing was made")
        await admin.close()
    }
}
