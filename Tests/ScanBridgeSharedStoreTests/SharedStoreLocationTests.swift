import Foundation
import Testing

@testable import ScanBridgeSharedStore

struct SharedStoreLocationTests {
    @Test func aHostAndPortAreReachedOverTCP() throws {
        let location = try SharedStoreLocation(url: "postgresql://till@db.shop.lan:6543/shop")
        #expect(location.endpoint == .tcp(host: "db.shop.lan", port: 6543))
        #expect(location.user == "till")
        #expect(location.database == "shop")
        #expect(location.password == nil)
    }

    @Test func thePortIsPostgreSQLsUnlessGiven() throws {
        #expect(try SharedStoreLocation(url: "postgres://till@db/shop").endpoint == .tcp(host: "db", port: 5432))
    }

    @Test func aFolderAsHostIsTheServersUnixSocket() throws {
        let encoded = try SharedStoreLocation(url: "postgresql://till@%2Frun%2Fpostgresql/shop")
        #expect(encoded.endpoint == .unixSocket(path: "/run/postgresql/.s.PGSQL.5432", port: 5432))
        let parameter = try SharedStoreLocation(url: "postgresql://till@localhost:5433/shop?host=/tmp/pg")
        #expect(parameter.endpoint == .unixSocket(path: "/tmp/pg/.s.PGSQL.5433", port: 5433))
    }

    @Test(arguments: [
        ("mysql://till@db/shop", "the store URL is not postgresql://"),
        ("postgresql://db/shop", "names no user"),
        ("postgresql://till@db/", "names no database"),
        ("postgresql://till@/shop", "names no host"),
        ("postgresql://till@db/shop?sslcert=x.pem", "unknown parameter 'sslcert'"),
        ("postgresql://till@db/shop?sslmode=prefer", "sslmode 'prefer' is not one of"),
        ("postgresql://till@db/shop?sslmode=allow", "sslmode 'allow' is not one of"),
    ])
    func aWrongURLSaysWhatIsWrong(url: String, complaint: String) {
        #expect {
            try SharedStoreLocation(url: url)
        } throws: { error in
            "\(error)".contains(complaint)
        }
    }

    @Test func aPasswordInTheURLIsRefusedWithoutRepeatingIt() {
        #expect {
            try SharedStoreLocation(url: "postgresql://till:hunter2@db/shop")
        } throws: { error in
            "\(error)".contains("store.password_file") && !"\(error)".contains("hunter2")
        }
    }

    @Test(arguments: ["postgres+tls://till:hunter2@db/shop", "postgresql://till:hunter2@db /shop", "till:hunter2@db"])
    func noMessageRepeatsAPassword(url: String) {
        #expect {
            try SharedStoreLocation(url: url)
        } throws: { error in
            !"\(error)".contains("hunter2")
        }
    }

    @Test func aPasswordFileWrittenOnWindowsGivesThePasswordWithoutItsLineEnd() throws {
        let path = "/tmp/scanbridge-password-\(getpid())"
        try "s3cret\r\nsecond line\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        chmod(path, 0o600)
        let location = try SharedStoreLocation(url: "postgresql://till@db/shop").withPassword(file: path, environment: [:])
        #expect(location.password == "s3cret")
    }

    /// A password file other users may read is refused, as libpq refuses such a `.pgpass`.
    @Test func aPasswordFileOthersMayReadIsRefused() throws {
        let path = "/tmp/scanbridge-password-open-\(getpid())"
        try "s3cret\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        chmod(path, 0o644)
        #expect {
            try SharedStoreLocation(url: "postgresql://till@db/shop").withPassword(file: path, environment: [:])
        } throws: { error in
            "\(error)".contains("store.password_file \(path) has mode 644") && !"\(error)".contains("s3cret")
        }
        chmod(path, 0o640)
        let location = try SharedStoreLocation(url: "postgresql://till@db/shop").withPassword(file: path, environment: [:])
        #expect(location.password == "s3cret", "a group may read it")
    }

    @Test func thePasswordComesFromTheEnvironmentBeforePgpass() throws {
        let location = try SharedStoreLocation(url: "postgresql://till@db/shop")
        let found = try location.withPassword(file: nil, environment: ["PGPASSWORD": "s3cret", "PGPASSFILE": "/nonexistent"])
        #expect(found.password == "s3cret")
        #expect(try location.withPassword(file: nil, environment: ["PGPASSFILE": "/nonexistent"]).password == nil)
    }

    @Test func aMissingPasswordFileIsAnError() throws {
        let location = try SharedStoreLocation(url: "postgresql://till@db/shop")
        #expect(throws: SharedStoreLocation.ParseError.self) {
            try location.withPassword(file: "/nonexistent/password", environment: [:])
        }
    }

    @Test func pgpassMatchesHostPortDatabaseAndUserWithWildcardsAndEscapes() throws {
        let text = """
            # comment
            other:5432:shop:till:wrong
            db:5432:*:till:pa\\:ss\\\\word
            *:*:*:*:fallback
            """
        let tcp = try SharedStoreLocation(url: "postgresql://till@db/shop")
        #expect(SharedStoreLocation.password(inPassFile: text, for: tcp) == "pa:ss\\word")
        let socket = try SharedStoreLocation(url: "postgresql://till@localhost/shop?host=/run/postgresql")
        #expect(SharedStoreLocation.password(inPassFile: text, for: socket) == "fallback")
    }

    /// Past this machine, the server's certificate is checked and must name the host unless
    /// the URL says otherwise; on loopback, TLS when the server offers it; a socket has none.
    @Test func tlsIsVerifiedFullyBeyondThisMachineUnlessTheURLSaysOtherwise() throws {
        #expect(try SharedStoreLocation(url: "postgresql://till@db.shop.lan/shop").tlsMode == .verifyFull)
        #expect(try SharedStoreLocation(url: "postgresql://till@10.0.0.5/shop").tlsMode == .verifyFull)
        for host in ["localhost", "127.0.0.1", "[::1]"] {
            #expect(try SharedStoreLocation(url: "postgresql://till@\(host)/shop").tlsMode == .prefer, "\(host)")
        }
        let socket = try SharedStoreLocation(url: "postgresql://till@localhost/shop?host=/run/postgresql")
        #expect(!socket.usesTLS)
        for mode in ["disable", "require", "verify-ca", "verify-full"] {
            let named = try SharedStoreLocation(url: "postgresql://till@db/shop?sslmode=\(mode)")
            #expect(named.tlsMode.rawValue == mode)
        }
        let rooted = try SharedStoreLocation(url: "postgresql://till@db/shop?sslrootcert=/etc/shop-ca.pem")
        #expect(rooted.rootCertificate == "/etc/shop-ca.pem")
    }

    @Test func theURLsRootCertificateComesBeforeTheConfigsAndAMissingOneIsAnError() throws {
        let config = "/tmp/scanbridge-root-\(getpid()).pem"
        try "-----BEGIN CERTIFICATE-----\n".write(toFile: config, atomically: true, encoding: .utf8)
        defer { unlink(config) }
        let plain = try SharedStoreLocation(url: "postgresql://till@db/shop")
        #expect(try plain.withRootCertificate(config).rootCertificate == config)
        #expect(try plain.withRootCertificate(nil).rootCertificate == nil)
        #expect {
            try SharedStoreLocation(url: "postgresql://till@db/shop?sslrootcert=/nonexistent/ca.pem").withRootCertificate(config)
        } throws: { error in
            "\(error)".contains("'/nonexistent/ca.pem' cannot be read")
        }
    }

    /// PostgreSQL's cleartext and MD5 methods give a password away: without TLS it goes to a
    /// server on this machine only.
    @Test func aPasswordIsNeverSentInClearBeyondThisMachine() throws {
        let environment = ["PGPASSWORD": "s3cret"]
        #expect {
            try SharedStoreLocation(url: "postgresql://till@db/shop?sslmode=disable").withPassword(
                file: nil, environment: environment)
        } throws: { error in
            "\(error)".contains("sslmode=disable and a password") && !"\(error)".contains("s3cret")
        }
        for url in [
            "postgresql://till@127.0.0.1/shop?sslmode=disable", "postgresql://till@db/shop?sslmode=require",
            "postgresql://till@localhost/shop?host=/run/postgresql",
        ] {
            #expect(try SharedStoreLocation(url: url).withPassword(file: nil, environment: environment).password == "s3cret")
        }
        let trusted = try SharedStoreLocation(url: "postgresql://till@db/shop?sslmode=disable")
        #expect(try trusted.withPassword(file: nil, environment: ["PGPASSFILE": "/nonexistent"]).password == nil)
    }

    @Test func theDescriptionNeverHoldsThePassword() throws {
        var location = try SharedStoreLocation(url: "postgresql://till@db/shop")
        location.password = "hunter2"
        #expect(!location.description.contains("hunter2"))
    }
}
