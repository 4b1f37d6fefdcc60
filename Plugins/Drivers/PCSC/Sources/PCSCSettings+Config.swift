/// The config file's `pcsc:` section: beep and LED after each tap's resolution on
/// ACR122U-class readers. The timings keep their defaults; no file sets them.
extension PCSCSettings: Decodable {
    enum SettingsKeys: String, CodingKey {
        case feedback
        /// More reader-name fragments that get feedback (a compatible reader under another name).
        case feedbackReaders = "feedback_readers"
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: SettingsKeys.self)
        self.init(
            feedback: PCSCFeedbackSettings(
                enabled: try c.decodeIfPresent(Bool.self, forKey: .feedback) ?? false,
                extraReaders: try c.decodeIfPresent([String].self, forKey: .feedbackReaders) ?? []))
    }
}
