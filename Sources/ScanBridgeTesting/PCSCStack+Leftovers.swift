import Foundation

/// A test run that is killed (SIGKILL, a CI timeout) never runs `PCSCStack`'s deinit: its
/// private pcscd keeps running and its folder stays in /tmp. Each stack records its owner
/// (this process) in its folder, and a new stack first ends the stacks whose owner is dead.
extension PCSCStack {
    static let folderPrefix = "scanbridge-pcscd-"
    static let ownerFile = "owner"

    /// A process as `<pid> <start time>`: the start time (field 22 of /proc/<pid>/stat) tells a
    /// live owner from another process that got its pid later.
    static func processIdentity(_ pid: Int32) -> String? {
        guard let fields = ProcessStat.fields(of: pid), fields.count > 19 else { return nil }
        return "\(pid) \(fields[19])"
    }

    /// Marks `directory` as this process's stack.
    static func recordOwner(in directory: URL) throws {
        let me = processIdentity(getpid()) ?? "\(getpid()) ?"
        try me.write(to: directory.appendingPathComponent(ownerFile), atomically: false, encoding: .utf8)
    }

    /// Kills the pcscd of every stack folder whose owner is gone and removes the folder. Folders
    /// without an owner file (an older kit, or one being set up) are left alone.
    static func removeLeftovers(in temporary: URL = FileManager.default.temporaryDirectory) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for name in names where name.hasPrefix(folderPrefix) {
            let folder = temporary.appendingPathComponent(name)
            guard let owner = try? String(contentsOf: folder.appendingPathComponent(ownerFile), encoding: .utf8),
                let pid = Int32(owner.split(separator: " ").first ?? "")
            else { continue }
            if processIdentity(pid) == owner { continue }  // its test run is alive
            if let text = try? String(contentsOf: folder.appendingPathComponent("pcscd.pid"), encoding: .utf8),
                let daemon = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                let command = ProcessStat.procFile("/proc/\(daemon)/cmdline"),
                command.contains(folder.path)
            {  // that pid is still this folder's pcscd
                kill(daemon, SIGKILL)
            }
            try? FileManager.default.removeItem(at: folder)
        }
    }
}
