import ArgumentParser
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// `--format csv|json`, with the values in --help.
extension ImportFormat: ExpressibleByArgument {}

/// What an `import` subcommand fills: `products import`, `orders import`.
protocol ImportKind {
    static var target: ImportTarget { get }
    /// What --help says after the columns: what they mean, examples.
    static var discussion: String { get }
}

/// `scanbridge products|orders import FILE`: streams a CSV or JSON file into the daemon in
/// batches, reporting each row it skips by its line, as `catalog.csv:17: <what is wrong>`.
struct ImportCommand<Kind: ImportKind>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        let columns = Kind.target.schema.columns
        return CommandConfiguration(
            commandName: "import",
            abstract: "Import \(Kind.target.noun)s from a CSV or JSON file; importing again updates them.",
            discussion: """
                The file is read as it streams, never whole. Rows that fail the check are reported on \
                standard error by line and skipped; the rest go to the daemon's \(Kind.target.method) in batches. \
                At the end one line on standard output says how many were imported; with --json, one \
                object: {"source", "imported", "skipped", "complete", "error"?}. On a terminal, standard \
                error shows a progress bar (a file) or a counter (standard input). Exits with status 1 \
                when a row was skipped or the import stopped early, 2 when the daemon cannot be reached, \
                3 when your role may not import.

                CSV columns (a header row, matched in any case): \(columns.map(\.name).joined(separator: ", ")); \
                \(columns.filter(\.isRequired).map(\.name).joined(separator: " and ")) are required. \
                An empty cell is left out. \(Kind.discussion)
                """)
    }

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The file (.csv, .json, .jsonl), or - for standard input.")
    var file: String

    @Option(help: ArgumentHelp("Records per call to the daemon.", valueName: "count"))
    var batch = 1000

    @Option(help: "csv, or json (one array, or JSON Lines); by default from the file's extension; required with -.")
    var format: ImportFormat?

    @Flag(help: "Print the outcome as one JSON object, and no progress.")
    var json = false

    /// What problems are reported under: the path as given, `stdin` for -.
    private var source: String { file == "-" ? "stdin" : file }

    func validate() throws {
        guard (1...10_000).contains(batch) else { throw ValidationError("--batch must be between 1 and 10000") }
        _ = try resolvedFormat()
    }

    private func resolvedFormat() throws -> ImportFormat {
        if let format { return format }
        guard file != "-" else { throw ValidationError("give --format csv or --format json to read standard input (-)") }
        guard let format = ImportFormat(path: file) else {
            throw ValidationError("cannot tell the format of \(file) from its name; give --format csv or --format json")
        }
        return format
    }

    func run() async throws {
        let target = Kind.target
        let (chunks, size) = try await openFile()
        let counter = CountedChunks<FileChunks>.Counter()
        let reader = ImportReader(
            CountedChunks(base: chunks, counter: counter), format: try resolvedFormat(), schema: target.schema)
        let progress = ImportProgress(noun: target.noun, bytesRead: counter, totalBytes: size, showing: !json)
        let summary = try await connection.withClient { client in
            await Importer(target: target, batchSize: batch, client: client).run(
                reader, onProblem: { await progress.problem($0.located(in: source)) }, onProgress: { await progress.update($0) })
        }
        await progress.end()
        if let failure = summary.failure {
            switch failure {
            case let problem as ImportProblem: await Console.error(problem.located(in: source), style: .failure)
            case is RPCError, is ClientError: _ = await ConnectionOptions.report(failure)
            default: await Console.error("\(source): \(failure)", style: .failure)
            }
        }
        if json {
            await Console.out(JSONText.pretty(outcome(summary)))
        } else {
            var line = "imported \(counted(summary.imported, target.noun)) from \(source)"
            if summary.skipped > 0 { line += "; \(counted(summary.skipped, "row")) skipped" }
            if summary.failure != nil { line += "; stopped before the end of the file by the error above" }
            await Console.out(line)
        }
        if let failure = summary.failure { throw ExitStatus.of(failure) }
        if summary.skipped > 0 { throw ExitStatus.negative }
    }

    /// The --json outcome: the counts, whether the whole file was read, and what stopped it.
    private func outcome(_ summary: ImportSummary) -> JSONValue {
        var outcome: [String: JSONValue] = [
            "source": .string(source), "imported": .int(Int64(summary.imported)), "skipped": .int(Int64(summary.skipped)),
            "complete": .bool(summary.failure == nil),
        ]
        switch summary.failure {
        case nil: break
        case let error as RPCError: outcome["error"] = ["code": .int(Int64(error.code)), "message": .string(error.message)]
        case let error as ImportProblem: outcome["error"] = ["message": .string(error.located(in: source))]
        case let error as ClientError: outcome["error"] = ["message": .string(error.message)]
        case let error?: outcome["error"] = ["message": .string("\(error)")]
        }
        return .object(outcome)
    }

    /// The file's chunks, and its size when it is a regular file (standard input may be one too).
    private func openFile() async throws -> (FileChunks, Int64?) {
        guard file != "-" else { return (.standardInput(), ImportProgress.regularFileSize(descriptor: STDIN_FILENO)) }
        do {
            let chunks = try await FileChunks.open(file)
            return (chunks, ImportProgress.regularFileSize(path: file))
        } catch {
            await Console.error(
                (error as? ImportProblem)?.located(in: source) ?? "\(source): cannot be opened: \(error)", style: .failure)
            throw ExitStatus.negative
        }
    }

    private func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
