import Foundation
import ScanBridgeModel

extension SharedStoreLocation {
    /// The password, looked up as libpq does, first found wins: the file the config names
    /// (its first line), `PGPASSWORD`, then the `.pgpass` file (`PGPASSFILE`, else `~/.pgpass`)
    /// line matching this host, port, database and user. Reads files: call it off the
    /// cooperative pool.
    package func withPassword(
        file: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ParseError) -> SharedStoreLocation {
        var location = self
        if let file {
            do {
                location.password = try SecretFile.password(at: file, setting: "store.password_file")
            } catch {
                throw ParseError(description: error.description)
            }
        } else if let password = environment["PGPASSWORD"] {
            location.password = password
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            let passFile = environment["PGPASSFILE"] ?? "\(home)/.pgpass"
            if let text = try? String(contentsOfFile: passFile, encoding: .utf8) {
                location.password = Self.password(inPassFile: text, for: self)
            }
        }
        return try location.refusingPasswordInClear()
    }

    /// The password of the first `host:port:database:user:password` line that matches (`*`
    /// matches anything, `\:` and `\\` are a colon and a backslash).
    static func password(inPassFile text: String, for location: SharedStoreLocation) -> String? {
        let wanted = [location.passwordHost, String(location.port), location.database, location.user]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = passFields(line)
            guard fields.count == 5 else { continue }
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    private static func passFields(_ line: Substring) -> [String] {
        var fields = [""]
        var escaped = false
        for character in line {
            if escaped {
                fields[fields.count - 1].append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" && fields.count < 5 {
                fields.append("")
            } else {
                fields[fields.count - 1].append(character)
            }
        }
        return fields
    }
}
