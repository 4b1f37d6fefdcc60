import Foundation

/// A file that holds a secret: the gateway's TLS key, the shop store's password. One that
/// users other than its owner and group may read, or anyone but its owner may change, is
/// refused, as libpq refuses such a `.pgpass` and sshd such a host key: the daemon would
/// otherwise serve with a secret every local user can read, or one they can replace.
package enum SecretFile {
    /// Why the mode of the file at `path` is unsafe for the setting `setting`; nil when it is
    /// safe, or when the file cannot be examined (its reader says why it cannot be read).
    /// - Parameter ownerOnly: its group may not read it either: keys that make every card of
    ///   the shop (the cards' SDM keys) are the daemon's user's alone.
    package static func problem(_ path: String, setting: String, ownerOnly: Bool = false) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let mode = info.st_mode & 0o777
        guard mode & (ownerOnly ? 0o077 : 0o027) != 0 else { return nil }
        if ownerOnly {
            return "\(setting) \(path) has mode \(String(mode, radix: 8)): users other than its owner may read or "
                + "change it; chmod 600 it, owned by the daemon's user"
        }
        return "\(setting) \(path) has mode \(String(mode, radix: 8)): other users may read or change it; "
            + "chmod 600 it (640 when a group must read it)"
    }

    /// The password in the file at `path`: its first line, whatever ends it (an editor on
    /// Windows ends it with CR LF), once its mode is safe (`problem`).
    package static func password(at path: String, setting: String) throws(Refused) -> String {
        if let problem = problem(path, setting: setting) { throw Refused(description: problem) }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw Refused(description: "\(setting) '\(path)' cannot be read")
        }
        return String(text.prefix { $0 != "\n" && $0 != "\r\n" && $0 != "\r" })
    }

    /// Why a secret file is not used.
    package struct Refused: Error, CustomStringConvertible {
        package let description: String
    }
}
