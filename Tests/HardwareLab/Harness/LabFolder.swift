import Foundation
import ScanBridgeTesting

/// The lab's own working folder on the host. Everything the harness writes or deletes is
/// inside it (`.hardware-lab/` in the repository, or `$SCANBRIDGE_LAB_DIR`):
///
///     guest-N.lock         a guest slot (`LabLock.guestSlot`), across test processes
///     admin.lock           cleaning up runs and building the image, one test process at a time
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

    /// Cleans up after earlier runs. Called with the admin lock held. A QEMU still alive from
    /// a run whose test process died is killed, and all but the newest finished runs are
    /// removed, so a stale lab never poisons the next; a guest whose test process still runs
    /// (another lane's, or another test process's) is left alone.
    static func cleanUpEarlierRuns(in runs: URL = runs, keeping keptRuns: Int = keptRuns) throws {
        try makeFolder(runs)
        let names = (try FileManager.default.contentsOfDirectory(atPath: runs.path)).sorted()
        var finished: [String] = []
        for name in names {
            let run = runs.appendingPathComponent(name)
            if let text = try? String(contentsOf: run.appendingPathComponent("qemu.pid"), encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                isQEMU(pid, of: run)
            {
                if ownerIsAlive(name) { continue }
                kill(pid, SIGKILL)
            }
            finished.append(name)
        }
        for name in finished.dropLast(keptRuns) { try remove(runs.appendingPathComponent(name)) }
    }

    /// Whether the test process that made run `name` (`<stamp>-<pid>-<tag>`, `newRun`) runs.
    private static func ownerIsAlive(_ name: String) -> Bool {
        let parts = name.split(separator: "-")
        guard parts.count >= 2, let pid = Int32(parts[parts.count - 2]), pid > 1 else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// Whether `pid` is still the QEMU of `run` (and not a process that reused its number).
    private static func isQEMU(_ pid: Int32, of run: URL) -> Bool {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        let commandLine = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
        return commandLine.contains("qemu-system") && commandLine.contains(run.path)
    }
}

/// The lab's locks, across test processes: `flock`s on files in the lab folder, taken
/// without blocking a thread; the kernel drops them if the process dies. Each has its own
/// open file description, so two tasks of one process exclude each other too.
final class LabLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// How many guests run at once on this machine: `SCANBRIDGE_LAB_GUESTS`, else one per core
    /// up to the lab's two lanes (`LabSuites`). Two TCG guests on two cores keep their pace; a
    /// build beside one halves it.
    static let guestSlots: Int = {
        if let text = ProcessInfo.processInfo.environment["SCANBRIDGE_LAB_GUESTS"], let count = Int(text), count >= 1 {
            return count
        }
        return min(max(ProcessInfo.processInfo.activeProcessorCount, 1), 2)
    }()

    /// One of the `guestSlots` slots, held as long as its guest runs.
    static func guestSlot(timeout: Duration = .seconds(3600)) async throws -> LabLock {
        let paths = (0..<guestSlots).map { LabFolder.root.appendingPathComponent("guest-\($0).lock").path }
        return try await acquire(paths, timeout: timeout)
    }

    /// The admin lock, around `body`: cleaning up earlier runs and building the image.
    static func withAdmin<T>(_ body: () async throws -> T) async throws -> T {
        let lock = try await acquire([LabFolder.root.appendingPathComponent("admin.lock").path], timeout: .seconds(900))
        defer { withExtendedLifetime(lock) {} }
        return try await body()
    }

    /// The first of `paths` free, waiting until one is.
    private static func acquire(_ paths: [String], timeout: Duration) async throws -> LabLock {
        try LabFolder.makeFolder(LabFolder.root)
        var descriptors: [Int32] = []
        defer { for descriptor in descriptors { close(descriptor) } }
        for path in paths {
            let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw LabFailure(step: "lab lock", reason: "cannot open \(path): \(String(cString: strerror(errno)))")
            }
            descriptors.append(descriptor)
        }
        let taken = try await LabFailure.timing("lab lock") {
            try await waitFor("another guest to let go of \(paths.joined(separator: " or "))", timeout: timeout) {
                descriptors.firstIndex { flock($0, LOCK_EX | LOCK_NB) == 0 }
            }
        }
        let descriptor = descriptors.remove(at: taken)
        return LabLock(descriptor: descriptor)
    }

    deinit { close(descriptor) }
}
