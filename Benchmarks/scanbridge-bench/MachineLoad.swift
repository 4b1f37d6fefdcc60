import Foundation
import ScanBridgeTesting

/// How busy the whole machine was over a stretch, and how much of that was the scenario's
/// own processes: on a shared machine, a latency's tail follows what other programs run.
struct MachineLoad {
    private let busy: Double
    private let total: Double
    private let stolen: Double
    private let ours: Double
    private let processes: @Sendable () -> Double

    /// Starts the stretch; `processes` gives the CPU seconds so far of the scenario's own
    /// processes (this benchmark's is added).
    init(ours processes: @escaping @Sendable () -> Double) {
        (busy, total, stolen) = Self.ticks()
        ours = processes() + (ProcessStat.cpuSeconds(of: getpid()) ?? 0)
        self.processes = processes
    }

    /// `2 vCPUs 85% busy, 40% by other programs` since `init`.
    func describe() -> String {
        let (busyNow, totalNow, stolenNow) = Self.ticks()
        let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
        let perSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        // /proc/stat's first line sums every CPU: its ticks over the stretch are `cores` × its seconds.
        let seconds = (totalNow - total) / perSecond / cores
        guard seconds > 0 else { return "" }
        let used = (busyNow - busy) / perSecond
        let oursUsed = processes() + (ProcessStat.cpuSeconds(of: getpid()) ?? 0) - ours
        let stolenShare = (stolenNow - stolen) / perSecond / (seconds * cores)
        return String(
            format: "the machine's %.0f vCPUs %.0f%% busy, %.0f%% by other programs", cores, 100 * used / (seconds * cores),
            100 * max(0, used - oursUsed) / (seconds * cores))
            + (stolenShare >= 0.01 ? String(format: ", %.0f%% taken by the host", 100 * stolenShare) : "")
    }

    /// Busy, total and stolen ticks of every CPU, from /proc/stat's `cpu` line: idle, iowait
    /// and the time the host gave to others (steal) are not this machine's work.
    private static func ticks() -> (busy: Double, total: Double, stolen: Double) {
        guard let handle = FileHandle(forReadingAtPath: "/proc/stat"), let data = try? handle.readToEnd() else {
            return (0, 0, 0)
        }
        try? handle.close()
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first ?? ""
        let values = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard values.count >= 8 else { return (0, 0, 0) }
        // user nice system idle iowait irq softirq steal (guest time is counted in user already).
        let total = values.prefix(8).reduce(0, +)
        return (total - values[3] - values[4] - values[7], total, values[7])
    }
}
