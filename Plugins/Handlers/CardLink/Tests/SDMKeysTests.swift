import ScanBridgeCodes
import ScanBridgeSUN
import Testing

@testable import CardLink

/// The keys file's reading: both key schemes, and refusals that name the line, never a key.
@Suite struct SDMKeysTests {
    static let meta = "8A1B2C3D4E5F60718293A4B5C6D7E8F9"
    static let master = "00112233445566778899AABBCCDDEEFF"

    @Test func fixedAndDiversifiedKeysAreRead() throws {
        let fixed = try SDMKeys(
            text: "# keys\nmeta_read_key: \(Self.meta)\nfile_read_key: \(Self.master)  # the MAC's\n", named: "k")
        guard case .fixed = fixed.fileReadKey else { throw SDMKeys.LoadError("not fixed") }
        let diversified = try SDMKeys(
            text: "meta_read_key: \(Self.meta)\nmaster_key: \(Self.master)\ndiversification_data: 3042F5\n", named: "k")
        guard case .diversified(_, let suffix) = diversified.fileReadKey else { throw SDMKeys.LoadError("not diversified") }
        #expect(suffix == [0x30, 0x42, 0xF5])
    }

    @Test(arguments: [
        ("file_read_key: \(master)\n", "has no meta_read_key"),
        ("meta_read_key: \(meta)\n", "neither file_read_key nor master_key"),
        ("meta_read_key: \(meta)\nfile_read_key: \(master)\nmaster_key: \(master)\n", "both file_read_key and master_key"),
        ("meta_read_key: \(meta)x\nmaster_key: \(master)\n", "line 1: meta_read_key is not 32 hex digits"),
        ("meta_read_key: \(meta)\nmaster: \(master)\n", "line 2: unknown key 'master'"),
        ("meta_read_key \(meta)\n", "line 1, is not 'name: value'"),
        ("meta_read_key: \(meta)\nmeta_read_key: \(meta)\n", "given twice"),
        ("meta_read_key: \(meta)\nfile_read_key: \(master)\ndiversification_data: 01\n", "goes with master_key"),
    ])
    func refusalsNameTheLineAndNoKey(text: String, reason: String) {
        let error = #expect(throws: SDMKeys.LoadError.self) { try SDMKeys(text: text, named: "the file") }
        #expect(error?.description.contains(reason) == true, "\(error.map { "\($0)" } ?? "")")
        #expect(error?.description.contains(Self.meta) == false && error?.description.contains(Self.master) == false)
    }
}
