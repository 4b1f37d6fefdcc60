import Foundation
import ScanBridgeTesting

/// The lab's own working folder on the host. Everything the harness writes or deletes is
/// inside it (`.hardware-lab/` in the repository, or `$SCANBRIDGE_LAB_DIR`):
///
///     lock                 one guest at a time, across test processes
///     image/<key>/         the cached kernel, udev and initramfs of one kernel package version
///     runs/<stamp>/        one guest's instance: console log, QMP socket, results share
enum LabFolder {
    static let root: URL = {
        if let dir = ProcessInfo.processInfo.environment["SCANBRIDGE_LAB_DIR"] {
            return URL(fileURLWithPath: dir).standardizedFileURL
        }
        // Tests/HardwareLab/Harness/LabFolder.swift → the repository.
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return repository.appendingPathComponent(".hardware-lab").standardizedFileURL
    }()

    static var images: URL { root.appendingPathComponent("image") }
    static var runs: URL { root.appendingPathComponent("runs") }

    /// Finished runs whose logs are kept for a look after a failure; older ones are removed.
    static let keptRuns = 6

    /// Whether `url` is the lab folder or lies inside it (after resolving `..`).
    static func contains(_ url: URL) -> Bool {
        let path = url.standardizedFileURL.path
        return path == root.path || path.hasPrefix(root.path + "/")
    }

    /// Creates a folder inside the lab folder.
    static func makeFolder(_ url: URL) throws {
        try guardInside(url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Removes `url`, refusing anything outside the lab folder: a bug in a path can never
    /// delete the user's files.
    static func remove(_ url: URL) throws {
        try guardInside(url)
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
    }

    static func guardInside(_ url: URL) throws {
        guard contains(url) else {
            throw LabFailure(step: "lab folder", reason: "refusing to touch \(url.path): it is outside \(root.path)")
        }
    }

    /// A fresh folder for one guest, named so that runs sort by time.
    static func newRun() throws -> URL {
        let stamp = ISO8601DateFormatter.string(from: Date(), timeZone: .gmt, formatOptions: [.withFullDate, .withTime])
        let url = runs.appendingPathComponent("\(stamp)-\(getpid())-\(UUID().uuidString.prefix(4))")
        try makeFolder(url)
        return url
    }

    /// Cleans up after earlier runs. Called with the lab lock held, so no other guest is
    /// running: a QEMU still alive from a run whose test process died is killed, and all
    /// but the newest finished runs are removed, so a stale lab never poisons the next.
    static func cleanUpEarlierRuns(in runs: URL = runs, keeping keptRuns: Int = keptRuns) throws {
        try makeFolder(runs)
        let names = (try FileManager.default.contentsOfDirectory(atPath: runs.path)).sorted()
        for name in names {
            let run = runs.appendingPathComponent(name)
            if let text = try? String(contentsOf: run.appendingPathComponent("qemu.pid"), encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                isQEMU(pid, of: run)
            {
                kill(pid, SIGKILL)
            }
        }
        for name in names.dropLast(keptRuns) { try remove(runs.appendingPathComponent(name)) }
    }

    /// Whether `pid` is still the QEMU of `run` (and not a process that reused its number).
    private static func isQEMU(_ pid: Int32, of run: URL) -> Bool {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        let commandLine = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
        return commandLine.contains("qemu-system") && commandLine.contains(run.path)
    }
}

/// The lab-wide lock: one guest at a time on this machine, whichever test process runs it
/// (two TCG guests on 2 cores would both miss their deadlines). An `flock` on a file in
/// the lab folder, taken without blocking a thread; the kernel drops it if the process dies.
final class LabLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    static func acquire(timeout: Duration = .seconds(900)) async throws -> LabLock {
        try LabFolder.makeFolder(LabFolder.root)
        let path = LabFolder.root.appendingPathComponent("lock").path
        let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw LabFailure(step: "lab lock", reason: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        // Each lock has its own open file description, so two tasks of one process exclude each other too.
        do {
            try await LabFailure.timing("lab lock") {
                try await waitUntil("another guest to let go of \(path)", timeout: timeout) {
                    flock(descriptor, LOCK_EX | LOCK_NB) == 0
                }
            }
        } catch {
            close(descriptor)
            throw error
        }
        return LabLock(descriptor: descriptor)
    }

    deinit { close(descriptor) }
}
