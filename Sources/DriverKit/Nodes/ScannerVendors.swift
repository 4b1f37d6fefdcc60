/// USB vendor ids of barcode scanner makers (hwdata usb.ids). A keyboard from one of them
/// is taken for a scanner; any other keyboard only when the operator says so. Kept in step
/// with `udev/70-scanbridge.rules` (a test checks).
package enum ScannerVendors {
    package static let all: [(id: UInt16, maker: String)] = [
        (0x0C2E, "Honeywell (Metrologic)"),
        (0x0536, "Hand Held Products (Honeywell)"),
        (0x067E, "Intermec"),
        (0x05E0, "Zebra (Symbol)"),
        (0x05F9, "Datalogic (PSC)"),
        (0x080C, "Datalogic"),
        (0x1EAB, "Newland"),
        (0x065A, "Opticon"),
        (0x0DB5, "Access-IS"),
    ]
}
