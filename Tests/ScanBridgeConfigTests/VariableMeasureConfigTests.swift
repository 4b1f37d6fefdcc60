import Foundation
import ScanBridgeCodes
import Testing

@testable import ScanBridgeConfig

/// `catalog.variable_measure`: layouts of in-store price and weight barcodes, checked at load.
struct VariableMeasureConfigTests {
    private func region(_ text: String) throws -> VariableMeasure.Region {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("scanbridge.yaml").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return try DaemonConfig.load(path: path).catalog.variableMeasureRegion()
    }

    private func refusal(_ text: String) -> String {
        do {
            _ = try region(text)
            return "loaded"
        } catch {
            return "\(error)"
        }
    }

    @Test func withoutTheSectionTheRegionsBuiltInLayoutsApply() throws {
        #expect(try region("catalog:\n  region: us\n") == .us)
        #expect(try region("log_level: info\n") == .gb)
    }

    @Test func configuredLayoutsExtendTheRegionAndWinForTheirPrefixes() throws {
        let loaded = try region(
            """
            catalog:
              region: US
              variable_measure:
                layouts:
                  - prefixes: ["02"]
                    item_digits: 5
                    price_digits: 5
                    decimals: 2
                  - prefixes: ["25", "26"]
                    item_digits: 5
                    weight_digits: 5
                    decimals: 3
                    price_check_digit: false
            """)
        let price = VariableMeasure.Layout("PPPPPPPVVVVV", .price, decimals: 2)
        let weight = VariableMeasure.Layout("PPPPPPPVVVVV", .weight, decimals: 3)
        #expect(loaded == VariableMeasure.Region(code: "US", layouts: ["02": price, "25": weight, "26": weight]))
    }

    @Test func aPriceWithoutDecimalsIsInTheCurrencysMinorUnit() throws {
        let loaded = try region(
            """
            catalog:
              region: GB
              variable_measure:
                layouts:
                  - {prefixes: ["21"], item_digits: 5, price_digits: 5}
            """)
        #expect(loaded.layouts["21"] == VariableMeasure.Layout("PPPPPPPVVVVV", .price))
        #expect(loaded.layouts["21"]?.decimals == nil)
    }

    @Test func replaceDropsTheBuiltInLayouts() throws {
        let loaded = try region(
            """
            catalog:
              region: GB
              variable_measure:
                replace: true
                layouts:
                  - {prefixes: ["21"], item_digits: 4, price_check_digit: true, price_digits: 5, decimals: 2}
            """)
        #expect(loaded.layouts == ["21": VariableMeasure.Layout("PPPPPPCVVVVV", .price, decimals: 2)])
    }

    @Test func aRegionWithoutBuiltInLayoutsNeedsConfiguredOnes() throws {
        let loaded = try region(
            """
            catalog:
              region: it
              variable_measure:
                layouts:
                  - {prefixes: ["21"], item_digits: 5, price_digits: 5, decimals: 2}
            """)
        #expect(loaded.code == "IT")
        #expect(refusal("catalog:\n  region: IT\n").contains("use one of GB, DE, SE, NO, DK, US, CA, FR, NL"))
        #expect(
            refusal(
                "catalog:\n  region: Italy\n  variable_measure:\n    layouts:\n"
                    + "      - {prefixes: [\"21\"], item_digits: 5, price_digits: 5, decimals: 2}\n"
            ).contains("give two letters"))
    }

    @Test(
        arguments: [
            // Lengths that do not make an EAN-13.
            (
                #"{prefixes: ["21"], item_digits: 5, price_digits: 4, decimals: 2}"#,
                "catalog.variable_measure.layouts[0]: 2 prefix digits + 5 item digits + 0 price check digit + 4 price digits make 11; they must make 12"
            ),
            (
                #"{prefixes: ["21"], item_digits: 5, price_digits: 5, decimals: 4}"#,
                "catalog.variable_measure.layouts[0]: a price has 0 to 3 decimals"
            ),
            (
                #"{prefixes: ["28"], item_digits: 5, weight_digits: 5, decimals: 4}"#,
                "a weight has 0 to 3 decimals"
            ),
            (
                #"{prefixes: ["21"], item_digits: 3, price_check_digit: true, price_digits: 6, decimals: 2}"#,
                "a price check digit is defined over 4 or 5 digits"
            ),
            (
                #"{prefixes: ["21"], item_digits: 5, price_digits: 5, weight_digits: 5, decimals: 2}"#,
                "needs exactly one of price_digits and weight_digits"
            ),
            (#"{prefixes: ["28"], item_digits: 5, weight_digits: 5}"#, "layouts[0].decimals is missing"),
            (
                #"{prefixes: ["21"], item_digits: 9223372036854775807, price_digits: 5, decimals: 2}"#,
                "the item reference has 1 to 9 digits"
            ),
            (#"{prefixes: ["21"], price_digits: 5, decimals: 2}"#, "layouts[0].item_digits is missing"),
            (#"{item_digits: 5, price_digits: 5, decimals: 2}"#, "layouts[0].prefixes is missing"),
            // A company's GTIN prefix, and an unquoted 02 that YAML reads as the number 2.
            (
                #"{prefixes: ["50"], item_digits: 5, price_digits: 5, decimals: 2}"#,
                "'50' is not a restricted-circulation prefix; use 02"
            ),
            (#"{prefixes: [2], item_digits: 5, price_digits: 5, decimals: 2}"#, "'2' is not a restricted-circulation prefix"),
            (#"{prefixes: ["21", "21"], item_digits: 5, price_digits: 5, decimals: 2}"#, "prefix 21 is in"),
            (#"{prefixes: ["21"], item_digits: 5, price_digits: 5, decimals: 2, check: true}"#, "unknown key 'check'"),
        ])
    func aBadLayoutIsRefusedSayingWhatToFix(layout: String, says: String) {
        let message = refusal("catalog:\n  variable_measure:\n    layouts:\n      - \(layout)\n")
        #expect(message.contains(says), "\(message)")
    }

    @Test func twoLayoutsMayNotShareAPrefix() {
        let message = refusal(
            """
            catalog:
              variable_measure:
                layouts:
                  - {prefixes: ["21", "22"], item_digits: 5, price_digits: 5, decimals: 2}
                  - {prefixes: ["23", "22"], item_digits: 5, weight_digits: 5, decimals: 3}
            """)
        #expect(message.contains("prefix 22 is in catalog.variable_measure.layouts[0] and [1]; give each prefix one layout"))
    }
}
