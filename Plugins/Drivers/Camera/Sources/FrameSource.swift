import Foundation

/// Where a file camera's frames come from: the PGM and PNG files of a folder, in name
/// order, or the frames of a Y4M file. A frame that cannot be read is an error for that
/// frame only; `next()` is nil at the end.
final class FrameSource {
    private enum Kind {
        case folder(files: [String], next: Int)
        case y4m(Y4MReader)
    }

    private var kind: Kind
    /// A Y4M file whose frame was cut short or garbled: what follows cannot be found.
    private var broken = false
    let path: String

    init(path: String) throws(FrameError) {
        self.path = path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw .unreadable("\(path) does not exist")
        }
        if isFolder.boolValue {
            let names: [String]
            do { names = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
                throw .unreadable("cannot list \(path): \(error.localizedDescription)")
            }
            let frames = names.filter { [".pgm", ".png"].contains(where: $0.lowercased().hasSuffix) }.sorted()
            guard !frames.isEmpty else { throw .unreadable("\(path) holds no .pgm or .png frame") }
            kind = .folder(files: frames.map { path + "/" + $0 }, next: 0)
        } else {
            kind = .y4m(try Y4MReader(path: path))
        }
    }

    /// The next frame, nil at the end; throws for a frame that cannot be read (the one
    /// after it is next). A Y4M file cut short ends there.
    func next() throws(FrameError) -> GrayFrame? {
        switch kind {
        case .folder(let files, let index):
            guard index < files.count else { return nil }
            kind = .folder(files: files, next: index + 1)
            return try FrameFiles.read(path: files[index])
        case .y4m(let reader):
            guard !broken else { return nil }
            do {
                return try reader.next()
            } catch {
                broken = true
                throw error
            }
        }
    }

    func rewind() throws(FrameError) {
        switch kind {
        case .folder(let files, _): kind = .folder(files: files, next: 0)
        case .y4m(let reader):
            try reader.rewind()
            broken = false
        }
    }
}
