/// What a claim or release names: every device of one USB product (`vvvv:pppp`, hex), or one
/// device by the id discovery gives it (`evdev:0c2e:0b81:SERIAL`, `hidpos:…@1-2.3#01`,
/// `serial:ttyACM0`, `v4l2:046d:0825@1-2`). Read by the same rules from the config and from
/// `devices.claim|release`.
package enum ScannerKey {
    /// The drivers whose devices discovery finds, hence whose ids a key may name.
    package static let drivers = ["evdev", "hidpos", "serial", "v4l2"]

    /// `text` as a key (lowercase), or a sentence saying what is wrong with it.
    package static func parse(_ text: String) -> Result<String, KeyError> {
        let key = text.lowercased()
        let hex = "0123456789abcdef"
        let parts = key.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 2, parts.allSatisfy({ $0.count == 4 && $0.allSatisfy(hex.contains) }) {
            return .success(key)
        }
        let allowed = "abcdefghijklmnopqrstuvwxyz0123456789.:_@#-"
        guard let driver = parts.first.map(String.init), drivers.contains(driver), key.count > driver.count + 1,
            key.count <= 256, key.allSatisfy(allowed.contains)
        else {
            return .failure(
                KeyError(
                    description:
                        "'\(text)' is neither vvvv:pppp (a USB vendor and product id in hex, as lsusb shows them) nor the id of a device discovery finds (\(drivers.map { "\($0):…" }.joined(separator: ", ")); `scanbridge devices candidates` lists them)"
                ))
        }
        return .success(key)
    }

    package struct KeyError: Error, CustomStringConvertible {
        package let description: String
    }
}
