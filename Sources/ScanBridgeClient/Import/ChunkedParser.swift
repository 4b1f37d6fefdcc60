/// A parser fed its input in chunks of any size: `append` bytes as they arrive, `finish()`
/// at the end, and take out what `next()` completes. `CSVReader` and `JSONSplitter` are
/// ones; so is what turns a file's bytes into the records of an import.
public protocol ChunkedParser<Output> {
    associatedtype Output

    /// Adds the next bytes of the input.
    mutating func append(_ chunk: some Sequence<UInt8>)

    /// Says that the input is complete.
    mutating func finish()

    /// The next complete output; nil when it needs more input (or, after `finish()`, at the end).
    mutating func next() throws(ImportProblem) -> Output?
}
