import Foundation

/// What `/proc/<pid>/…` says of a process: its start time (to tell it from a later process
/// with its pid), the CPU time it has used (the benchmarks' CPU figures), its memory, open
/// files and threads (what a fault test holds steady).
package enum ProcessStat {
    /// The fields after the command name, which may hold spaces: field 3 (state) is at index
    /// 0, field n at n − 3 (proc(5)). Nil when the process is gone.
    package static func fields(of pid: Int32) -> [Substring]? {
        guard let stat = procFile("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    /// User and system CPU seconds of all the process's threads (fields 14 and 15, in clock
    /// ticks: a resolution of 10 ms on Linux).
    package static func cpuSeconds(of pid: Int32) -> Double? {
        guard let fields = fields(of: pid), fields.count > 12,
            let user = Double(fields[11]), let system = Double(fields[12])
        else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// `cpuSeconds` of the process and of its children: those it waited for (fields 16 and
    /// 17) and those still running, such as a camera's decoder process.
    package static func cpuSecondsWithChildren(of pid: Int32) -> Double? {
        guard let own = cpuSeconds(of: pid), let fields = fields(of: pid), fields.count > 14,
            let waited = Double(fields[13]), let waitedSystem = Double(fields[14])
        else { return nil }
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        let children = tasks.flatMap { task in
            (procFile("/proc/\(pid)/task/\(task)/children") ?? "").split(separator: " ").compactMap { Int32($0) }
        }
        return children.reduce(own + (waited + waitedSystem) / Double(sysconf(Int32(_SC_CLK_TCK)))) {
            $0 + (cpuSeconds(of: $1) ?? 0)
        }
    }

    /// A memory figure of `/proc/<pid>/status` in MB (`VmRSS`, `VmHWM`, `RssAnon`…); 0 when
    /// the process or the line is gone.
    package static func megabytes(_ key: String, of pid: Int32) -> Double {
        guard let status = procFile("/proc/\(pid)/status"),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") }),
            let kilobytes = line.split(separator: " ").dropFirst().first(where: { !$0.isEmpty }).flatMap({ Double($0) })
        else { return 0 }
        return kilobytes / 1024
    }

    /// The process's open file descriptors (`/proc/<pid>/fd`); nil when the process is gone.
    package static func openFiles(of pid: Int32) -> Int? {
        try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
    }

    /// The process's threads (`/proc/<pid>/task`); nil when the process is gone.
    package static func threads(of pid: Int32) -> Int? {
        try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count
    }

    /// A /proc file's text, read to its end (its size says 0, which a whole-file read trusts).
    static func procFile(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
