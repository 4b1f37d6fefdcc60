public import ArgumentParser
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

extension ImportPreset: ExpressibleByArgument {}

/// What an `import` subcommand fills: `products import`, `orders import`.
protocol ImportKind {
    static var target: ImportTarget { get }
    /// Whether `--preset` and `--prune` apply (the catalog's import).
    static var isCatalog: Bool { get }
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

    @Option(
        name: .customLong("map"),
        help: ArgumentHelp(
            "Read a column of the file as a field: 'Variant Barcode=barcode,Title=name'. Repeatable; pairs are "
                + "comma-separated, a comma or backslash in a column name is written \\, or \\\\; 'Column=' leaves "
                + "the column out.",
            valueName: "column=field,…"))
    var maps: [String] = []

    @Option(
        help: ArgumentHelp(
            "A file of mappings, one 'Column=field' a line (split at the last =, nothing escaped); lines "
                + "starting with # are comments.",
            valueName: "file"))
    var mapFile: String?

    @Option(help: "Read the file as this shop's product export (products only): shopify or woocommerce.")
    var preset: ImportPreset?

    @Flag(help: "Leave out the columns that name no field, instead of refusing the file.")
    var ignoreUnknownColumns = false

    @Option(help: "The CSV field separator: comma, semicolon or tab (or , ; \\t); by default found in the header line.")
    var delimiter: String?

    @Option(help: "The file's text encoding: utf-8 or windows-1252; by default detected.")
    var encoding: String?

    @Flag(
        help: ArgumentHelp(
            "Make the file the store's whole catalog (products only): its store's products not in the file are "
                + "deleted. All in one transaction at the end, and only when no row was skipped."))
    var prune = false

    /// What problems are reported under: the path as given, `stdin` for -.
    private var source: String { file == "-" ? "stdin" : file }

    func validate() throws {
        guard (1...10_000).contains(batch) else { throw ValidationError("--batch must be between 1 and 10000") }
        let csvOnly = !maps.isEmpty || mapFile != nil || preset != nil || ignoreUnknownColumns || delimiter != nil
        if try resolvedFormat() != .csv, csvOnly || encoding != nil {
            throw ValidationError(
                "--map, --map-file, --preset, --ignore-unknown-columns, --delimiter and --encoding are for CSV files; "
                    + "JSON names its fields itself and is UTF-8")
        }
        if !Kind.isCatalog, preset != nil || prune {
            throw ValidationError("--preset and --prune are for products import only")
        }
        if preset != nil, !maps.isEmpty || mapFile != nil {
            throw ValidationError("--preset reads the export's own columns; give --map or --preset, not both")
        }
        if let delimiter, CSVDelimiter(argument: delimiter) == nil {
            throw ValidationError("--delimiter must be comma, semicolon or tab; got '\(delimiter)'")
        }
        if let encoding, ImportEncoding(argument: encoding) == nil {
            throw ValidationError("--encoding must be utf-8 or windows-1252; got '\(encoding)'")
        }
        var mapping = ColumnMapping()
        for value in maps {
            do { try mapping.add(argument: value) } catch { throw ValidationError(error.message) }
        }
        do { try mapping.validate(against: Kind.target.schema) } catch { throw ValidationError(error.message) }
    }

    /// The CSV options the flags give, with the map file read. Throws, having said why, when the
    /// map file cannot be read or maps to a field that does not exist: before anything is sent.
    private func csvOptions() async throws -> CSVImportOptions {
        var mapping = ColumnMapping()
        do {
            for value in maps { try mapping.add(argument: value) }
            if let mapFile { try mapping.add(fileText: try await Self.readMapFile(mapFile)) }
            try mapping.validate(against: Kind.target.schema)
        } catch let problem as ImportProblem {
            await Console.error(problem.message, style: .failure)
            throw ExitStatus.usage
        }
        return CSVImportOptions(
            delimiter: delimiter.flatMap(CSVDelimiter.init(argument:)),
            encoding: encoding.flatMap(ImportEncoding.init(argument:)), mapping: mapping,
            ignoresUnknownColumns: ignoreUnknownColumns, preset: preset)
    }

    /// A map file is small: more than this is a mistake (a catalog given as the map).
    private static var maxMapFileBytes: Int { 1 << 20 }

    private static func readMapFile(_ path: String) async throws -> String {
        var bytes: [UInt8] = []
        do {
            for try await chunk in try await FileChunks.open(path) {
                bytes += chunk
                guard bytes.count <= maxMapFileBytes else {
                    throw ImportProblem(line: nil, "is larger than 1 MiB; a map file holds one 'Column=field' a line")
                }
            }
        } catch let problem as ImportProblem {
            throw ImportProblem(line: nil, problem.located(in: path))
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ImportProblem(line: nil, "\(path): is not UTF-8 text")
        }
        return text
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
        var target = Kind.target
        // A prune stages the rows, and commits them all at once at the end.
        if prune { target.method = "products.stage" }
        let options = try await csvOptions()
        let (chunks, size) = try await openFile()
        let counter = CountedChunks<FileChunks>.Counter()
        let reader = ImportReader(
            CountedChunks(base: chunks, counter: counter), format: try resolvedFormat(), schema: target.schema,
            options: options)
        let progress = ImportProgress(noun: target.noun, bytesRead: counter, totalBytes: size, showing: !json)
        var commit: JSONValue?
        var summary = try await connection.withClient { client in
            var summary = await Importer(target: target, batchSize: batch, client: client).run(
                reader, onProblem: { await progress.problem($0.located(in: source)) }, onProgress: { await progress.update($0) })
            if prune, summary.failure == nil, summary.skipped == 0 {
                do {
                    commit = try await client.call("products.commit", ["prune": true])
                } catch {
                    summary.failure = error
                }
            }
            return summary
        }
        await progress.end()
        if prune, summary.failure == nil, summary.skipped > 0 {
            summary.failure = ImportProblem(
                line: nil,
                "--prune changed nothing, because \(counted(summary.skipped, "row")) \(summary.skipped == 1 ? "was" : "were") "
                    + "skipped: pruning would delete the products of those rows; fix them and import again")
        }
        if let failure = summary.failure {
            switch failure {
            case let problem as ImportProblem: await Console.error(problem.located(in: source), style: .failure)
            case is RPCError, is ClientError: _ = await ConnectionOptions.report(failure)
            default: await Console.error("\(source): \(failure)", style: .failure)
            }
        }
        if json {
            var outcome = outcome(summary)
            if prune, case .object(var members) = outcome {
                members["imported"] = .int(Int64(commit == nil ? 0 : summary.imported))
                members["deleted"] = commit?["deleted"] ?? .int(0)
                members["storeId"] = commit?["storeId"] ?? .null
                outcome = .object(members)
            }
            await Console.out(JSONText.pretty(outcome))
        } else if prune {
            if let commit {
                let deleted = Int(commit["deleted"]?.intValue ?? 0)
                let store = commit["storeId"]?.stringValue.map { "store \($0)" } ?? "no store"
                await Console.out(
                    "replaced the catalog of \(store) with \(counted(summary.imported, target.noun)) from \(source); "
                        + "deleted \(counted(deleted, target.noun)) not in the file")
            } else {
                await Console.out("changed nothing: the catalog is as it was before the import")
            }
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
