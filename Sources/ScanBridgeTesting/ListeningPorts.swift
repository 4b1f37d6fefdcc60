import Foundation

/// The loopback TCP ports a process listens on, read from /proc: for a child started on
/// port 0 (`--http 127.0.0.1:0`), whatever it says or does not say in its log.
package enum ListeningPorts {
    /// The IPv4 ports in LISTEN state on 127.0.0.1 of the sockets `pid` holds open, in
    /// ascending order; empty when there are none yet or the process is gone.
    package static func loopback(of pid: Int32) -> [Int] {
        let inodes = socketInodes(of: pid)
        guard !inodes.isEmpty, let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else {
            return []
        }
        var ports: [Int] = []
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
            guard fields.count > 9, fields[3] == "0A", inodes.contains(String(fields[9])) else { continue }
            let local = fields[1].split(separator: ":")
            guard local.count == 2, local[0] == "0100007F", let port = Int(local[1], radix: 16) else { continue }
            ports.append(port)
        }
        return ports.sorted()
    }

    /// The inodes of the sockets among `pid`'s open files.
    static func socketInodes(of pid: Int32) -> Set<String> {
        let folder = "/proc/\(pid)/fd"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var inodes: Set<String> = []
        for entry in entries {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(entry)"),
                target.hasPrefix("socket:["), target.hasSuffix("]")
            else { continue }
            inodes.insert(String(target.dropFirst("socket:[".count).dropLast()))
        }
        return inodes
    }
}
