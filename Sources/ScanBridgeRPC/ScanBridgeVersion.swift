/// The version of ScanBridge: what `scanbridged --version` and `scanbridge --version` print
/// and what `bridge.hello` answers. One constant for the daemon and the CLI, so they never differ.
public enum ScanBridgeVersion {
    public static let current = "0.2.0"
}
