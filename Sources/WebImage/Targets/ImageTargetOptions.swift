/// How an ``ImageTarget`` shows a load: switches that concern the target only, so they are not part of the
/// manager's ``ImageOptions`` (SDWebImage keeps them among its options; a manager has nothing to do with them).
public struct ImageTargetOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int

    /// Creates options from their raw bits.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Show the placeholder only if the load fails, not while it runs.
    public static let delayPlaceholder = ImageTargetOptions(rawValue: 1 << 0)
    /// Do not show the loaded image (nor previews); the completion handler decides what to do with it.
    public static let avoidAutoSetImage = ImageTargetOptions(rawValue: 1 << 1)
}
