/// The kernel's NFC modules, which take ACR122U and SCL3711 readers away from pcscd.
package enum PCSCKernelModules {
    package static let conflicting = ["pn533_usb", "pn533", "nfc"]

    /// The conflicting modules `/proc/modules` lists (its first field is the module's name).
    package static func loaded(inProcModules text: String) -> [String] {
        let names = Set(
            text.split(whereSeparator: \.isNewline).compactMap { line in
                line.split(separator: " ", maxSplits: 1).first.map(String.init)
            })
        return conflicting.filter(names.contains)
    }
}
