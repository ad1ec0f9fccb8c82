import Foundation
import WebImageServer

extension ServeSettings {
    /// `format:best`'s settings: the complexity threshold, the resolution above which one format is picked
    /// without trying the others, best by default, and whether skips still apply (imgproxy's
    /// `IMGPROXY_BEST_FORMAT_*`).
    func bestFormat(_ configuration: inout ProxyConfiguration) throws {
        if let text = source.text(command.bestFormatComplexityThreshold.map { String($0) },
                                  flag: "--best-format-complexity-threshold", "BEST_FORMAT_COMPLEXITY_THRESHOLD",
                                  imgproxy: ["IMGPROXY_BEST_FORMAT_COMPLEXITY_THRESHOLD"]) {
            guard let threshold = Double(text.text), threshold.isFinite, threshold >= 0 else {
                throw ServeError("\(text.origin) \(text.text): expected a number of at least 0")
            }
            configuration.bestFormat.complexityThreshold = threshold
        }
        if let pixels = try source.wholeNumber(command.bestFormatMaxPixels, flag: "--best-format-max-pixels",
                                               "BEST_FORMAT_MAX_PIXELS",
                                               imgproxy: ["IMGPROXY_BEST_FORMAT_MAX_RESOLUTION"],
                                               unit: .megapixels, minimum: 0) {
            configuration.bestFormat.maximumPixels = pixels > 0 ? pixels : nil  // imgproxy's 0: no limit
        }
        configuration.bestFormat.byDefault = try source.switchOn(
            command.bestFormatByDefault, "BEST_FORMAT_BY_DEFAULT", imgproxy: ["IMGPROXY_BEST_FORMAT_BY_DEFAULT"])
        configuration.bestFormat.allowsSkips = try source.switchOn(
            command.bestFormatAllowSkips, "BEST_FORMAT_ALLOW_SKIPS", imgproxy: ["IMGPROXY_BEST_FORMAT_ALLOW_SKIPS"])
    }
}
