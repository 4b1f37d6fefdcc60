import Foundation

/// An emulated device, given at boot (QEMU's command line) or plugged later over QMP.
enum LabDevice: Sendable, Hashable {
    /// The USB 3 host controller (`qemu-xhci`, bus `xhci.0`) that USB devices plug into.
    case usbController
    /// A USB HID keyboard: how a keyboard-wedge barcode scanner looks to Linux. It shows as
    /// `0627:0001` "QEMU USB Keyboard", with `/dev/input/by-id/usb-QEMU_QEMU_USB_Keyboard_<serial>-event-kbd`.
    case usbKeyboard(id: String = "scan1", serial: String = "SCAN0001")
    /// QEMU's USB CCID smart-card reader (`usb-ccid`, `08e6:4433`), with no card in it:
    /// libccid knows it as "Gemalto USB SmartCard Reader 433-Swap". It is a contact reader
    /// (no NFC UIDs), so it shows reader hotplug through pcscd and libccid, not taps. pcscd
    /// puts the USB serial number in the reader's name; without `serial`, QEMU makes one up
    /// from the USB path (`1-0000:00:04.0-2`), which changes with the port.
    case usbCCID(id: String = "ccid1", serial: String = "CCID0001")
    /// QEMU's USB serial adapter (`usb-serial`): an FTDI FT232 (`0403:6001`, vendor class
    /// 0xff), which the kernel's `ftdi_sio` makes a `ttyUSB` port of; kept away from it, a
    /// scanner in a vendor mode. Each packet it sends starts with the chip's two status bytes.
    /// What `Guest.send(_:to:)` writes arrives on its IN endpoint. Plugged over QMP only: its
    /// character device (a pair of FIFOs in the run folder) is made when it is plugged.
    case usbSerial(id: String = "ftdi1", serial: String = "FTDI0001")
    /// A smart card in the `usb-ccid` reader with id `reader` (QEMU's `ccid-card-emulated`):
    /// inserting it is plugging it, taking it out unplugging it. A contact card, with
    /// certificates NSS's certutil makes in the run folder when it is first plugged; it
    /// answers APDUs, but has no contactless UID. Plugged over QMP only.
    case ccidCard(id: String = "card1", reader: String = "ccid1")
    /// A disk on the virtio bus (`/dev/vda` for the first), backed by a raw image file on the
    /// host and written through to it: what the guest wrote and flushed is in the file when
    /// QEMU is killed, and what it had not flushed is lost, as in a power cut. Given at boot only.
    case disk(id: String = "disk1", image: String)

    var id: String {
        switch self {
        case .usbController: "xhci"
        case .usbKeyboard(let id, _): id
        case .usbCCID(let id, _): id
        case .usbSerial(let id, _): id
        case .ccidCard(let id, _): id
        case .disk(let id, _): id
        }
    }

    /// The udev by-id node of the device's evdev interface, when it has one.
    var inputByID: String? {
        switch self {
        case .usbController, .usbCCID, .usbSerial, .ccidCard, .disk: nil
        case .usbKeyboard(_, let serial): "/dev/input/by-id/usb-QEMU_QEMU_USB_Keyboard_\(serial)-event-kbd"
        }
    }

    /// The properties QEMU takes for it, on the command line and in `device_add` alike.
    var properties: [(String, String)] {
        switch self {
        case .usbController: [("driver", "qemu-xhci"), ("id", "xhci")]
        case .usbKeyboard(let id, let serial):
            [("driver", "usb-kbd"), ("id", id), ("bus", "xhci.0"), ("serial", serial)]
        case .usbCCID(let id, let serial): [("driver", "usb-ccid"), ("id", id), ("bus", "xhci.0"), ("serial", serial)]
        case .usbSerial(let id, let serial):
            [("driver", "usb-serial"), ("id", id), ("bus", "xhci.0"), ("serial", serial), ("chardev", "\(id)-chr")]
        case .ccidCard(let id, let reader):
            [
                ("driver", "ccid-card-emulated"), ("id", id), ("bus", "\(reader).0"), ("backend", "certificates"),
                ("cert1", "cert1"), ("cert2", "cert2"), ("cert3", "cert3"),
            ]
        case .disk(let id, _): [("driver", "virtio-blk-pci"), ("id", id), ("drive", "\(id)-drive")]
        }
    }

    var qemuArguments: [String] {
        let properties = properties
        let device = ["-device", ([properties[0].1] + properties.dropFirst().map { "\($0.0)=\($0.1)" }).joined(separator: ",")]
        guard case .disk(let id, let image) = self else { return device }
        return ["-drive", "file=\(image),format=raw,if=none,id=\(id)-drive,cache=writethrough"] + device
    }

    var needsUSBController: Bool {
        switch self {
        case .usbKeyboard, .usbCCID, .usbSerial, .ccidCard: true
        case .usbController, .disk: false
        }
    }

    /// `devices`, with the USB controller first when a USB device needs it.
    static func withControllers(_ devices: [LabDevice]) -> [LabDevice] {
        var all = devices.filter { $0 != .usbController }
        if devices.contains(.usbController) || devices.contains(where: \.needsUSBController) {
            all.insert(.usbController, at: 0)
        }
        return all
    }
}

extension Guest {
    /// Hot-plugs `device` (QMP `device_add`); when it has an evdev node, waits until udev made its by-id link.
    func plug(_ device: LabDevice) async throws {
        if case .usbSerial(let id, _) = device { try await makeCharacterDevice(id) }
        var arguments: [String: any Sendable] = [:]
        for (key, value) in device.properties { arguments[key] = value }
        if case .ccidCard = device { arguments["db"] = "sql:" + (try await makeCardCertificates()) }
        try await qmp.execute("device_add", arguments)
        if let node = device.inputByID {
            try await waitUntil("the guest sees \(device.id) as \(node)", "[ -e \(node) ]")
        }
    }

    /// A serial device's character device: FIFOs QEMU opens read-write (so no writer's close
    /// is an end of file), made once and kept across replugs.
    private func makeCharacterDevice(_ id: String) async throws {
        let base = folder.appendingPathComponent(id).path
        guard !FileManager.default.fileExists(atPath: base + ".in") else { return }
        for end in [".in", ".out"] where mkfifo(base + end, 0o600) != 0 {
            throw LabFailure(step: "plug \(id)", reason: "mkfifo \(base + end): \(String(cString: strerror(errno)))")
        }
        let backend: [String: any Sendable] = ["type": "pipe", "data": ["device": base] as [String: any Sendable]]
        try await qmp.execute("chardev-add", ["id": "\(id)-chr", "backend": backend])
    }

    /// The NSS database of the virtual card's three certificates, made once in the run folder.
    private func makeCardCertificates() async throws -> String {
        let database = folder.appendingPathComponent("card-nssdb")
        guard !FileManager.default.fileExists(atPath: database.appendingPathComponent("cert9.db").path) else {
            return database.path
        }
        try FileManager.default.createDirectory(at: database, withIntermediateDirectories: true)
        let noise = database.appendingPathComponent("noise")
        try Data((0..<64).map { _ in UInt8.random(in: 0...255) }).write(to: noise)
        let step = "make the virtual card's certificates (certutil, Debian package libnss3-tools)"
        try await HostCommand.run(
            ["certutil", "-N", "-d", "sql:" + database.path, "--empty-password"], in: folder, step: step)
        for number in 1...3 {
            try await HostCommand.run(
                [
                    "certutil", "-S", "-d", "sql:" + database.path, "-n", "cert\(number)", "-s",
                    "CN=ScanBridge lab card \(number)",
                    "-x", "-t", "CT,C,C", "-k", "rsa", "-g", "1024", "-z", noise.path, "-v", "120",
                ], in: folder, step: step)
        }
        return database.path
    }

    /// Sends `text` from the outside into the serial device `id` (`LabDevice.usbSerial`),
    /// as a scanner's chip would pass it on. QEMU holds its FIFO open, so this never waits.
    func send(_ text: String, to id: String) throws {
        let path = folder.appendingPathComponent(id).path + ".in"
        let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw LabFailure(step: "send to \(id)", reason: "open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
            throw LabFailure(step: "send to \(id)", reason: "write \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Unplugs the device with `id` (QMP `device_del`) and waits until QEMU has removed it.
    func unplug(_ id: String) async throws {
        try await qmp.execute("device_del", ["id": id])
        try await qmp.waitForEvent("DEVICE_DELETED", where: "device", is: id)
    }

    /// Types `text` on the keyboard plugged last (QEMU sends keys to the newest keyboard),
    /// one QMP command per key (its press and release), `pace` apart: QEMU's emulated
    /// keyboard queue is small and back-to-back keys are lost.
    ///
    /// A key typed twice in a row ("33") is pressed and released in commands of their own,
    /// `pace` apart, with another `pace` before it is pressed again: a USB keyboard reports
    /// which keys are down, and a guest that has not yet seen the release between two
    /// presses sees one press (in full lab runs, a label's "33" came out as "3").
    func type(_ text: String, pace: Duration = .milliseconds(30)) async throws {
        let strokes = try text.map { character in
            guard let stroke = KeyStroke(character) else {
                throw LabFailure(step: "type \(text.debugDescription)", reason: "no key for \(character.debugDescription)")
            }
            return stroke
        }
        for (index, stroke) in strokes.enumerated() {
            let again = index > 0 && strokes[index - 1].qcode == stroke.qcode
            let repeated = index + 1 < strokes.count && strokes[index + 1].qcode == stroke.qcode
            // No "device": QEMU takes only display-bound devices there.
            if again || repeated {
                try await qmp.execute("input-send-event", ["events": stroke.press])
                try await Task.sleep(for: pace)  // pacing the keyboard: the press seen before the release
                try await qmp.execute("input-send-event", ["events": stroke.release])
                if repeated { try await Task.sleep(for: pace) }  // and the release before the next press
            } else {
                try await qmp.execute("input-send-event", ["events": stroke.press + stroke.release])
            }
            try await Task.sleep(for: pace)  // pacing the keyboard, as a scanner types
        }
    }
}

/// The QEMU key codes (qcodes) of one character on a US layout, with shift when it needs it.
struct KeyStroke {
    let qcode: String
    let shift: Bool

    private static let plain: [Character: String] = [
        "\n": "ret", " ": "spc", "\t": "tab", "-": "minus", "=": "equal", "/": "slash", ".": "dot", ",": "comma",
        ";": "semicolon", "'": "apostrophe", "[": "bracket_left", "]": "bracket_right", "\\": "backslash",
    ]
    private static let shifted: [Character: String] = [
        ":": "semicolon", "_": "minus", "+": "equal", "?": "slash", "!": "1", "@": "2", "#": "3", "$": "4", "%": "5",
        "&": "7", "*": "8", "(": "9", ")": "0",
    ]

    init?(_ character: Character) {
        if let code = Self.plain[character] {
            (qcode, shift) = (code, false)
        } else if let code = Self.shifted[character] {
            (qcode, shift) = (code, true)
        } else if character.isASCII, character.isNumber || character.isLowercase {
            (qcode, shift) = (String(character), false)
        } else if character.isASCII, character.isUppercase {
            (qcode, shift) = (character.lowercased(), true)
        } else {
            return nil
        }
    }

    /// The key pressed, with shift down first when needed.
    var press: [[String: any Sendable]] {
        shift ? [Self.key("shift", down: true), Self.key(qcode, down: true)] : [Self.key(qcode, down: true)]
    }

    /// The key released, then shift when it was down.
    var release: [[String: any Sendable]] {
        shift ? [Self.key(qcode, down: false), Self.key("shift", down: false)] : [Self.key(qcode, down: false)]
    }

    private static func key(_ code: String, down: Bool) -> [String: any Sendable] {
        [
            "type": "key",
            "data": ["down": down, "key": ["type": "qcode", "data": code] as [String: any Sendable]] as [String: any Sendable],
        ]
    }
}
