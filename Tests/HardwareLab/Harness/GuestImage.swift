import Foundation

/// The guest's kernel, its modules, udev and the initramfs, made from Debian's own
/// packages and cached in `image/<key>/`, where the key names the kernel and udev package
/// versions and the initramfs's `/init`: a new kernel package builds a new image, and the
/// old one is removed.
///
///     vmlinuz              the kernel
///     extras/              kernel modules (depmod'ed) and udev, laid out like the host's `/`;
///                          the guest layers it over the host's root
///     initramfs.cpio       busybox, the 9p and overlay modules, /init
struct GuestImage: Sendable {
    let folder: URL
    let kernelVersion: String

    var kernel: URL { folder.appendingPathComponent("vmlinuz") }
    var extras: URL { folder.appendingPathComponent("extras") }
    var initramfs: URL { folder.appendingPathComponent("initramfs.cpio") }

    /// Built to the end, and nothing of it deleted since (else it is built again).
    var isWhole: Bool {
        [
            folder.appendingPathComponent("complete"), kernel, initramfs,
            extras.appendingPathComponent(Self.modulesPath(kernelVersion)),
        ]
        .allSatisfy { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// Names the initramfs's `/init` in the image's key, so an image made with another one
    /// is built again (FNV-1a of its text).
    static var initVersion: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in GuestScripts.initramfsInit.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }

    /// The modules the initramfs loads, in dependency order, to mount the 9p root and its overlay.
    static let bootModules = [
        "virtio_ring", "virtio", "virtio_pci_modern_dev", "virtio_pci_legacy_dev", "virtio_pci",
        "netfs", "fscache", "9pnet", "9pnet_virtio", "9p", "overlay",
    ]

    /// The cached image for the current kernel package, built first when missing.
    /// Call with the admin lock held (`LabLock.withAdmin`).
    static func prepare() async throws -> GuestImage {
        try LabFolder.makeFolder(LabFolder.images)
        let packages: Packages
        do {
            packages = try await currentPackages()
        } catch let failure as LabFailure {
            // Offline, or apt's lists are gone: an image already built still boots.
            if let cached = cachedImage() { return cached }
            throw failure
        }
        let key = "\(packages.kernel)_\(packages.kernelVersion)+udev_\(packages.udevVersion)+init_\(initVersion)"
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: ":", with: "_")
        let folder = LabFolder.images.appendingPathComponent(key)
        let version = String(packages.kernel.dropFirst("linux-image-".count))
        let image = GuestImage(folder: folder, kernelVersion: version)
        if image.isWhole { return image }

        // Built in a scratch folder and renamed when whole, so an interrupted build is never used.
        let scratch = LabFolder.images.appendingPathComponent(".building-\(getpid())")
        try LabFolder.remove(scratch)
        try LabFolder.remove(folder)
        try LabFolder.makeFolder(scratch)
        try await build(packages: packages, version: version, in: scratch)
        // Images of earlier kernel packages are of no further use.
        for name in try FileManager.default.contentsOfDirectory(atPath: LabFolder.images.path)
        where name != scratch.lastPathComponent {
            try LabFolder.remove(LabFolder.images.appendingPathComponent(name))
        }
        try FileManager.default.moveItem(at: scratch, to: folder)
        try version.write(to: folder.appendingPathComponent("complete"), atomically: false, encoding: .utf8)
        return image
    }

    /// The image built last, whatever its packages: `complete` holds its kernel version.
    private static func cachedImage() -> GuestImage? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: LabFolder.images.path)) ?? []
        for name in names where !name.hasPrefix(".") {
            let folder = LabFolder.images.appendingPathComponent(name)
            if let version = try? String(contentsOf: folder.appendingPathComponent("complete"), encoding: .utf8), !version.isEmpty
            {
                let image = GuestImage(folder: folder, kernelVersion: version)
                if image.isWhole { return image }
            }
        }
        return nil
    }

    struct Packages {
        var kernel: String
        var kernelVersion: String
        var udevVersion: String
    }

    /// The kernel package `linux-image-amd64` depends on (never `-cloud-`: it has no USB,
    /// uinput or vivid), and the versions apt would fetch.
    static func currentPackages() async throws -> Packages {
        let step = "find the kernel package"
        let depends = try await HostCommand.run(["apt-cache", "depends", "linux-image-amd64"], in: LabFolder.images, step: step)
        guard
            let kernel = depends.output.split(separator: "\n")
                .compactMap({ line -> String? in
                    let parts = line.split(separator: " ")
                    guard parts.count == 2, parts[0] == "Depends:", parts[1].hasPrefix("linux-image-") else { return nil }
                    return String(parts[1])
                })
                .first(where: { !$0.contains("cloud") && $0.first(where: \.isNumber) != nil })
        else { throw LabFailure(step: step, reason: "linux-image-amd64 depends on no kernel package:\n\(depends.output)") }
        return Packages(
            kernel: kernel,
            kernelVersion: try await candidateVersion(of: kernel, step: step),
            udevVersion: try await candidateVersion(of: "udev", step: step))
    }

    private static func candidateVersion(of package: String, step: String) async throws -> String {
        let show = try await HostCommand.run(
            ["apt-cache", "show", "--no-all-versions", package], in: LabFolder.images, step: step)
        guard let line = show.output.split(separator: "\n").first(where: { $0.hasPrefix("Version: ") }) else {
            throw LabFailure(step: step, reason: "apt knows no version of \(package)")
        }
        return String(line.dropFirst("Version: ".count))
    }

    private static func build(packages: Packages, version: String, in folder: URL) async throws {
        let downloads = folder.appendingPathComponent("debs")
        try LabFolder.makeFolder(downloads)
        try await HostCommand.run(
            ["apt-get", "download", "-q", packages.kernel, "udev"], in: downloads, step: "download the kernel and udev packages")
        let extras = folder.appendingPathComponent("extras")
        for deb in try FileManager.default.contentsOfDirectory(atPath: downloads.path) where deb.hasSuffix(".deb") {
            try await HostCommand.run(["dpkg-deb", "-x", "debs/\(deb)", "extras"], in: folder, step: "unpack \(deb)")
        }
        try LabFolder.remove(downloads)
        try await HostCommand.run(["depmod", "-b", "extras", version], in: folder, step: "depmod the guest's modules")
        try FileManager.default.moveItem(
            at: extras.appendingPathComponent("boot/vmlinuz-\(version)"), to: folder.appendingPathComponent("vmlinuz"))
        try await mergeIntoUsr(extras, folder: folder)
        try await buildInitramfs(in: folder, modules: extras.appendingPathComponent(modulesPath(version)))
    }

    /// Where the modules of `version` are inside `extras` once merged into `usr/`.
    static func modulesPath(_ version: String) -> String {
        usrIsMerged ? "usr/lib/modules/\(version)" : "lib/modules/\(version)"
    }

    /// Debian 12 hosts have `/lib -> usr/lib`. The guest layers `extras` over the host's
    /// root, and a real `lib/` folder there would hide the host's `/lib` symlink (and every
    /// library behind it), so the packages' `/lib`, `/bin`, `/sbin` move under `usr/`.
    private static var usrIsMerged: Bool {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/lib")) != nil
    }

    private static func mergeIntoUsr(_ extras: URL, folder: URL) async throws {
        guard usrIsMerged else { return }
        for top in ["lib", "bin", "sbin", "lib64"]
        where FileManager.default.fileExists(atPath: extras.appendingPathComponent(top).path) {
            try await HostCommand.run(
                ["sh", "-c", "mkdir -p extras/usr/\(top) && cp -a extras/\(top)/. extras/usr/\(top)/ && rm -rf extras/\(top)"],
                in: folder, step: "lay out the guest's extras like the host's /")
        }
    }

    /// A newc cpio of busybox (static), the boot modules and `/init`.
    private static func buildInitramfs(in folder: URL, modules: URL) async throws {
        let step = "build the initramfs"
        let tree = folder.appendingPathComponent("initramfs")
        let fm = FileManager.default
        for sub in ["bin", "modules", "dev", "proc", "sys", "mnt", "newroot"] {
            try LabFolder.makeFolder(tree.appendingPathComponent(sub))
        }
        guard let busybox = ["/bin/busybox", "/usr/bin/busybox"].first(where: fm.isExecutableFile(atPath:)) else {
            throw LabFailure(step: step, reason: "no busybox on the host (Debian package busybox-static)")
        }
        try fm.copyItem(atPath: busybox, toPath: tree.appendingPathComponent("bin/busybox").path)
        let builtin = (try? String(contentsOf: modules.appendingPathComponent("modules.builtin"), encoding: .utf8)) ?? ""
        let enumerator = fm.enumerator(atPath: modules.appendingPathComponent("kernel").path)
        var found: [String: String] = [:]
        while let path = enumerator?.nextObject() as? String {
            let name = (path as NSString).lastPathComponent
            if let module = bootModules.first(where: { name == "\($0).ko" || name == "\($0).ko.xz" }) { found[module] = path }
        }
        var order: [String] = []
        for module in bootModules {
            if let path = found[module] {
                let source = modules.appendingPathComponent("kernel/\(path)").path
                let target = tree.appendingPathComponent("modules/\(module).ko").path
                if path.hasSuffix(".xz") {
                    try await HostCommand.run(["sh", "-c", "xz -dc '\(source)' > '\(target)'"], in: folder, step: step)
                } else {
                    try fm.copyItem(atPath: source, toPath: target)
                }
                order.append(module)
            } else if !builtin.contains("/\(module).ko") {
                throw LabFailure(step: step, reason: "the kernel has module \(module) neither as a file nor built in")
            }
        }
        try order.joined(separator: "\n").write(
            to: tree.appendingPathComponent("modules/order"), atomically: false, encoding: .utf8)
        let initPath = tree.appendingPathComponent("init").path
        try GuestScripts.initramfsInit.write(toFile: initPath, atomically: false, encoding: .utf8)
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: initPath)
        // The kernel gives init /dev/console from the initramfs; root can make the node, and
        // /init reopens it from devtmpfs anyway when it cannot.
        _ = try await HostCommand.run(
            ["mknod", "initramfs/dev/console", "c", "5", "1"], in: folder, step: step, allowFailure: true)
        try await HostCommand.run(
            ["sh", "-c", "cd initramfs && find . | busybox cpio -o -H newc > ../initramfs.cpio"], in: folder, step: step)
        try LabFolder.remove(tree)
    }
}
