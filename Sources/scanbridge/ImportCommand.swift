import ArgumentParser
import ScanBridgeClient
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
                At the end one line on standard output says how many were imported. Exits with status 1 \
                when a row was skipped or the import stopped early.

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
        let reader = ImportReader(try await openFile(), format: try resolvedFormat(), schema: target.schema)
        let progress = ImportProgress(noun: target.noun)
        let summary = try await connection.withClient { client in
            await Importer(target: target, batchSize: batch, client: client).run(
                reader, onProblem: { await progress.problem($0.located(in: source)) }, onProgress: { await progress.update($0) })
        }
        await progress.end()
        var line = "imported \(counted(summary.imported, target.noun)) from \(source)"
        if summary.skipped > 0 { line += "; \(counted(summary.skipped, "row")) skipped" }
        if let failure = summary.failure {
            switch failure {
            case let problem as ImportProblem: await Console.error(problem.located(in: source))
            case is RPCError, is ClientError: _ = await ConnectionOptions.report(failure)
            default: await Console.error("\(source): \(failure)")
            }
            line += "; stopped before the end of the file by the error above"
        }
        await Console.out(line)
        if summary.skipped > 0 || summary.failure != nil { throw ExitCode.failure }
    }

    private func openFile() async throws -> FileChunks {
        guard file != "-" else { return .standardInput() }
        do {
            return try await FileChunks.open(file)
        } catch {
            await Console.error((error as? ImportProblem)?.located(in: source) ?? "\(source): cannot be opened: \(error)")
            throw ExitCode.failure
        }
    }

    private func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}

/// An import's progress on standard error, at most once a second, and only on a terminal;
/// a skipped row's line replaces it rather than mixing with it.
actor ImportProgress {
    private let noun: String
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private var lastShown = ContinuousClock.now
    private var showing = false

    init(noun: String) {
        self.noun = noun
    }

    func update(_ summary: ImportSummary) async {
        guard isTerminal, ContinuousClock.now - lastShown >= .seconds(1) else { return }
        lastShown = .now
        showing = true
        await Console.status("importing: \(summary.imported) \(noun)s so far, \(summary.skipped) rows skipped")
    }

    func problem(_ line: String) async {
        await end()
        await Console.error(line)
    }

    /// Takes the progress line away.
    func end() async {
        guard showing else { return }
        showing = false
        await Console.status("")
    }
}
