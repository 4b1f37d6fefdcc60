import Foundation

/// CPU seconds of a process's threads, summed by name with the digits dropped (a pool's
/// threads are one name): where a busy daemon spends its time, from /proc.
enum ThreadCPU {
    static func byName(of pid: Int32) -> [(name: String, seconds: Double)] {
        let folder = "/proc/\(pid)/task"
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var totals: [String: Double] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let stat = try? String(contentsOfFile: "\(folder)/\(task)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")"),
                let comm = try? String(contentsOfFile: "\(folder)/\(task)/comm", encoding: .utf8)
            else { continue }
            // After "tid (name) ": state is field 3, utime and stime fields 14 and 15 (proc(5)).
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            totals[readable(comm.trimmingCharacters(in: .whitespacesAndNewlines)), default: 0] += (user + system) / ticks
        }
        return totals.sorted { $0.value > $1.value }.map { ($0.key, $0.value) }
    }

    /// Seconds the process's threads still running have spent runnable, waiting for a CPU
    /// (the second field of each one's schedstat): the time a busy machine took from them.
    static func waitingForCPU(of pid: Int32) -> Double {
        let folder = "/proc/\(pid)/task"
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).reduce(0) { total, task in
            let stat = (try? String(contentsOfFile: "\(folder)/\(task)/schedstat", encoding: .utf8)) ?? ""
            let fields = stat.split(separator: " ")
            return total + (fields.count > 1 ? (Double(fields[1]) ?? 0) / 1e9 : 0)
        }
    }

    /// A thread's kind by its name, which the kernel cuts to 15 bytes: libdispatch's
    /// `com.apple.root.default-qos.overcommit` shows as its end.
    static func readable(_ name: String) -> String {
        if name.hasSuffix("overcommit") { return "dispatch's serial-queue threads" }
        if name.hasSuffix("-qos") { return "dispatch's pool threads" }
        if name.contains("SGLTN") || name.hasPrefix("NIO-") { return "SwiftNIO's threads" }
        return name.filter { !$0.isNumber }
    }

    /// The busiest `top` of them: `NIO-ELT-# 3.2 s, …`.
    static func describe(_ threads: [(name: String, seconds: Double)], top: Int = 4) -> String {
        threads.prefix(top).map { $0.name + String(format: " %.1f s", $0.seconds) }.joined(separator: ", ")
    }
}
