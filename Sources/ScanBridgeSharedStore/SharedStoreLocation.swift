import Foundation

/// Where the shop's PostgreSQL database is: `postgresql://USER@HOST[:PORT]/DATABASE`, as
/// libpq writes it. A host that is a folder (`%2Frun%2Fpostgresql`, or `?host=/run/postgresql`)
/// is reached through the server's Unix socket in that folder.
package struct SharedStoreLocation: Sendable, Hashable, CustomStringConvertible {
    package enum Endpoint: Sendable, Hashable {
        case tcp(host: String, port: Int)
        /// The socket file, `<folder>/.s.PGSQL.<port>`.
        case unixSocket(path: String, port: Int)
    }

    /// How a TCP connection is protected, as libpq's `sslmode` names it.
    package enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// No TLS. Refused with a password to a host beyond this machine (`refusingPasswordInClear`).
        case disable
        /// TLS, the server's certificate not checked: a machine in the middle can still read.
        case require
        /// TLS with a certificate signed by the root certificate (or a root the system trusts).
        case verifyCA = "verify-ca"
        /// That, and the certificate names the host.
        case verifyFull = "verify-full"
        /// TLS when the server offers it, as libpq's default: only for a server on this
        /// machine, where no machine stands in the middle to strip it. Never asked for.
        case prefer
    }

    package let endpoint: Endpoint
    package let user: String
    package let database: String
    /// From `store.password_file`, `PGPASSWORD` or `~/.pgpass`; none for `trust` or `peer`.
    package var password: String?
    /// `sslmode`; unless named, `verify-full` for a host beyond this machine, `prefer` on
    /// loopback. Unused over a Unix socket, which TLS does not cross.
    package private(set) var tlsMode: TLSMode
    /// `sslrootcert`, else `store.root_certificate`: the PEM file of the roots the server's
    /// certificate must chain to; without it, the roots the system trusts.
    package private(set) var rootCertificate: String?

    package struct ParseError: Error, CustomStringConvertible {
        package let description: String
    }

    /// Reads the URL. A password written in it is refused: the URL is in the config file and in
    /// logs, so the password goes to `store.password_file` or `PGPASSWORD` instead.
    package init(url given: String) throws(ParseError) {
        let shape = "postgresql://USER@HOST[:PORT]/DATABASE"
        // Every message names the URL without a password it may hold.
        let text = Self.redacted(given)
        // Not repeated: what is not a URL of ours may hold a password where it cannot be found.
        guard let components = URLComponents(string: given),
            let scheme = components.scheme, ["postgresql", "postgres"].contains(scheme.lowercased())
        else { throw ParseError(description: "the store URL is not \(shape) (it is not repeated here: it may hold a password)") }
        guard components.password == nil else {
            throw ParseError(
                description: "store URL '\(text)' holds a password; put it in store.password_file or PGPASSWORD")
        }
        guard let user = components.user.flatMap({ $0.removingPercentEncoding }), !user.isEmpty else {
            throw ParseError(description: "store URL '\(text)' names no user: \(shape)")
        }
        let database = String(components.percentEncodedPath.drop { $0 == "/" }).removingPercentEncoding ?? ""
        guard !database.isEmpty, !database.contains("/") else {
            throw ParseError(description: "store URL '\(text)' names no database: \(shape)")
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else {
            throw ParseError(description: "store URL '\(text)': port \(port) is out of range")
        }
        let parameters = components.queryItems ?? []
        if let unknown = parameters.first(where: { !["host", "sslmode", "sslrootcert"].contains($0.name) }) {
            throw ParseError(
                description: "store URL '\(text)': unknown parameter '\(unknown.name)'; host=, sslmode= and sslrootcert= are read"
            )
        }
        let value = { (name: String) in parameters.first { $0.name == name }?.value }
        let host = value("host") ?? components.percentEncodedHost?.removingPercentEncoding ?? ""
        if host.hasPrefix("/") {
            endpoint = .unixSocket(path: "\(host)/.s.PGSQL.\(port)", port: port)
        } else if host.isEmpty {
            throw ParseError(description: "store URL '\(text)' names no host: \(shape)")
        } else {
            endpoint = .tcp(host: host, port: port)
        }
        self.user = user
        self.database = database
        if let named = value("sslmode") {
            guard let mode = TLSMode(rawValue: named), mode != .prefer else {
                throw ParseError(
                    description:
                        "store URL '\(text)': sslmode '\(named)' is not one of disable, require, verify-ca, verify-full "
                        + "(prefer and allow let a machine in the middle turn TLS off)")
            }
            tlsMode = mode
        } else {
            tlsMode = Self.isLoopback(host) ? .prefer : .verifyFull
        }
        rootCertificate = value("sslrootcert")
    }

    /// A host on this machine: no network stands between it and the daemon.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }

    /// Whether the connection is TLS: a TCP one, unless `sslmode=disable`.
    var usesTLS: Bool {
        guard case .tcp = endpoint else { return false }
        return tlsMode != .disable
    }

    /// The root certificate the config names, unless the URL named one.
    package func withRootCertificate(_ file: String?) throws(ParseError) -> SharedStoreLocation {
        var location = self
        location.rootCertificate = rootCertificate ?? file
        if let file = location.rootCertificate, !FileManager.default.isReadableFile(atPath: file) {
            throw ParseError(description: "the store's root certificate '\(file)' cannot be read")
        }
        return location
    }

    /// A password is never sent where a machine in the middle can read it: without TLS, only
    /// to a server on this machine. (PostgreSQL's cleartext and MD5 methods give it away, and
    /// which one the server asks for is known only once it has been asked.)
    func refusingPasswordInClear() throws(ParseError) -> SharedStoreLocation {
        guard password != nil, case .tcp(let host, _) = endpoint, tlsMode == .disable, !Self.isLoopback(host) else {
            return self
        }
        throw ParseError(
            description:
                "the store \(description) has sslmode=disable and a password: it would cross the network in clear; "
                + "use sslmode=verify-full (or require), or no password")
    }

    /// The host as `.pgpass` names it: the socket's folder stands for `localhost`, as libpq does.
    var passwordHost: String {
        switch endpoint {
        case .tcp(let host, _): host
        case .unixSocket: "localhost"
        }
    }

    var port: Int {
        switch endpoint {
        case .tcp(_, let port), .unixSocket(_, let port): port
        }
    }

    /// The location without its password, for logs and `bridge.hello`.
    package var description: String {
        switch endpoint {
        case .tcp(let host, let port): "postgresql://\(user)@\(host):\(port)/\(database)"
        case .unixSocket(let path, _): "postgresql://\(user)@/\(database) (socket \(path))"
        }
    }

    /// The URL with any password replaced; a URL that cannot be read is not repeated at all.
    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text) else { return "(not a URL)" }
        if components.password != nil { components.password = "…" }
        return components.string ?? "(not a URL)"
    }
}
