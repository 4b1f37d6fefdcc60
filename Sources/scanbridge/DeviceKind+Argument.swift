public import ArgumentParser
import ScanBridgeModel

// Lets `--kind nfc` parse straight into the protocol's kind, with the valid values in --help.
extension DeviceKind: ExpressibleByArgument {}
