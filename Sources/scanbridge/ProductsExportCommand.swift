public import ArgumentParser
import Dispatch
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// `--format csv|jsonl`, with the values in --help.
extension CatalogExport: ExpressibleByArgument {}

/// `scanbridge products export [FILE]`: the whole catalog, page by page, in a form
/// `products import` reads back unchanged.
struct ProductsExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the catalog to a file or standard output, as CSV or JSON Lines.",
        discussion: """
            Reads every page of products.list, in id order, and writes each page as it arrives, so \
            memory stays at one page whatever the size of the catalog. CSV has the columns of \
            products import, JSON Lines one product object a line; importing the file again changes \
            nothing. Products added while the export runs appear when their id comes after the page \
            being read. With --store, the file is that store's catalog, ready for products import --prune.
            Examples:
              scanbridge products export catalog.csv
              scanbridge products export --format jsonl --store store_1 > catalog.jsonl
            """)

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The file to write (replaced if it exists); standard output when left out or -.")
    var file: String?

    @Option(help: "csv or jsonl; by default from the file's extension (.jsonl, .ndjson: jsonl), else csv.")
    var format: CatalogExport?

    @Option(name: .customLong("store"), help: "Only the products of this store id; every store's by default.")
    var storeId: String?

    private var resolvedFormat: CatalogExport {
        if let format { return format }
        guard let file, file.hasSuffix(".jsonl") || file.hasSuffix(".ndjson") else { return .csv }
        return .jsonl
    }

    func run() async throws {
        let output = try await ExportFile.open(file == "-" ? nil : file)
        let format = resolvedFormat
        let count = try await connection.withClient { client in
            if let header = format.header { await output.write(header) }
            var after: String?
            var count = 0
            repeat {
                let page = try await client.call(
                    "products.list", ProductsPage.params(storeId: storeId, after: after, limit: 1000))
                let products = page["products"]?.arrayValue ?? []
                await output.write(products.map(format.line).joined())
                count += products.count
                after = page["next"]?.stringValue
            } while after != nil
            return count
        }
        try await output.close(reportingAs: file ?? "standard output")
        if let file, file != "-" {
            await Console.error("exported \(count) product\(count == 1 ? "" : "s") to \(file)")
        }
    }
}

/// Where an export goes: a file created (or emptied) for it, or standard output. Written on
/// a queue of its own: a write blocks while a pipe's reader is slow, never on the cooperative pool.
final class ExportFile: Sendable {
    private let descriptor: Int32
    private let closing: Bool
    private let queue = DispatchQueue(label: "scanbridge.export")

    private init(descriptor: Int32, closing: Bool) {
        self.descriptor = descriptor
        self.closing = closing
    }

    /// Opens `path` for writing, or standard output for nil.
    static func open(_ path: String?) async throws -> ExportFile {
        guard let path else { return ExportFile(descriptor: STDOUT_FILENO, closing: false) }
        let queue = DispatchQueue(label: "scanbridge.export.open")
        let (descriptor, failure) = await withCheckedContinuation { continuation in
            queue.async {
                let descriptor = openForWriting(path)
                continuation.resume(returning: (descriptor, errno))
            }
        }
        guard descriptor >= 0 else {
            await Console.error("\(path): cannot be written: \(String(cString: strerror(failure)))", style: .failure)
            throw ExitStatus.negative
        }
        return ExportFile(descriptor: descriptor, closing: true)
    }

    /// Whether an earlier write failed (a full disk, a reader gone): the export then fails.
    private let failure = Mutex<Int32>(0)

    func write(_ text: String) async {
        let bytes = Array(text.utf8)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async {
                if self.failure.withLock({ $0 }) == 0, let code = writeAll(bytes, to: self.descriptor) {
                    self.failure.withLock { $0 = code }
                }
                done.resume()
            }
        }
    }

    /// Closes the file; throws, having said why, when a write or the close failed.
    func close(reportingAs name: String) async throws {
        var code = failure.withLock { $0 }
        if closing {
            let closed = await withCheckedContinuation { continuation in
                queue.async { continuation.resume(returning: closeDescriptor(self.descriptor) == 0 ? 0 : errno) }
            }
            if code == 0 { code = closed }
        }
        guard code != 0 else { return }
        await Console.error("\(name): the export could not be written whole: \(String(cString: strerror(code)))", style: .failure)
        throw ExitStatus.negative
    }

}

// The C calls, under names the methods above do not shadow.
private func openForWriting(_ path: String) -> Int32 { open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
private func closeDescriptor(_ descriptor: Int32) -> Int32 { close(descriptor) }

/// Writes `bytes` whole; the errno of the write that failed, nil when all were written.
private func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
    bytes.withUnsafeBytes { buffer -> Int32? in
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                return written < 0 ? errno : EIO
            }
        }
        return nil
    }
}
