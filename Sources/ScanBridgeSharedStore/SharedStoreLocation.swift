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

    package let endpoint: Endpoint
    package let user: String
    package let database: String
    /// From `store.password_file`, `PGPASSWORD` or `~/.pgpass`; none for `trust` or `peer`.
    package var password: String?

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
        let queryHost = components.queryItems?.first { $0.name == "host" }?.value
        if let unknown = components.queryItems?.first(where: { $0.name != "host" }) {
            throw ParseError(description: "store URL '\(text)': unknown parameter '\(unknown.name)'; only host= is read")
        }
        let host = queryHost ?? components.percentEncodedHost?.removingPercentEncoding ?? ""
        if host.hasPrefix("/") {
            endpoint = .unixSocket(path: "\(host)/.s.PGSQL.\(port)", port: port)
        } else if host.isEmpty {
            throw ParseError(description: "store URL '\(text)' names no host: \(shape)")
        } else {
            endpoint = .tcp(host: host, port: port)
        }
        self.user = user
        self.database = database
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
