import Foundation
import WebImageServer

extension ServeSettings {
    /// Autoquality's settings (imgproxy's `IMGPROXY_AUTOQUALITY_*`): the method, its target, the quality range
    /// (with per-format bounds), the allowed DSSIM error and the largest result it searches for.
    func autoquality(_ configuration: inout ProxyConfiguration) throws {
        var settings = configuration.autoquality
        if let text = source.text(command.autoquality, flag: "--autoquality", "AUTOQUALITY",
                                  imgproxy: ["IMGPROXY_AUTOQUALITY_METHOD"]) {
            guard let method = ProcessingOptions.Autoquality.Method(rawValue: text.text.lowercased()) else {
                throw ServeError("\(text.origin) \(text.text): expected none, size, dssim or ml")
            }
            if method == .ml {
                source.warn("warning: \(text.origin)=ml: there are no models here; the dssim method is used")
            }
            settings.method = method
        }
        if let target = try number(command.autoqualityTarget, flag: "--autoquality-target", "AUTOQUALITY_TARGET",
                                   imgproxy: "IMGPROXY_AUTOQUALITY_TARGET", in: 0...Double(Int32.max)) {
            settings.target = target
        }
        if let error = try number(command.autoqualityAllowedError, flag: "--autoquality-allowed-error",
                                  "AUTOQUALITY_ALLOWED_ERROR", imgproxy: "IMGPROXY_AUTOQUALITY_ALLOWED_ERROR",
                                  in: 0...1) {
            settings.allowedError = error
        }
        if let minimum = try source.wholeNumber(command.autoqualityMin, flag: "--autoquality-min", "AUTOQUALITY_MIN",
                                                imgproxy: ["IMGPROXY_AUTOQUALITY_MIN"], minimum: 1) {
            settings.minimum = min(minimum, 100)
        }
        if let maximum = try source.wholeNumber(command.autoqualityMax, flag: "--autoquality-max", "AUTOQUALITY_MAX",
                                                imgproxy: ["IMGPROXY_AUTOQUALITY_MAX"], minimum: 1) {
            settings.maximum = min(maximum, 100)
        }
        if let list = source.text(command.autoqualityFormatMin, flag: "--autoquality-format-min",
                                  "AUTOQUALITY_FORMAT_MIN", imgproxy: ["IMGPROXY_AUTOQUALITY_FORMAT_MIN"]) {
            settings.formatMinimum = try Self.formatQualities(list.text, origin: list.origin)
        }
        if let list = source.text(command.autoqualityFormatMax, flag: "--autoquality-format-max",
                                  "AUTOQUALITY_FORMAT_MAX", imgproxy: ["IMGPROXY_AUTOQUALITY_FORMAT_MAX"]) {
            settings.formatMaximum = try Self.formatQualities(list.text, origin: list.origin)
        }
        if let pixels = try source.wholeNumber(command.autoqualityMaxPixels, flag: "--autoquality-max-pixels",
                                               "AUTOQUALITY_MAX_PIXELS",
                                               imgproxy: ["IMGPROXY_AUTOQUALITY_MAX_RESOLUTION"],
                                               unit: .megapixels, minimum: 0) {
            settings.maximumPixels = pixels > 0 ? pixels : nil  // imgproxy's 0: no limit
        }
        configuration.autoquality = settings
    }

    /// A decimal setting within `range`.
    private func number(_ given: Double?, flag: String, _ ours: String, imgproxy: String,
                        in range: ClosedRange<Double>) throws -> Double? {
        guard let text = source.text(given.map { String($0) }, flag: flag, ours, imgproxy: [imgproxy]) else {
            return nil
        }
        guard let value = Double(text.text), value.isFinite, range.contains(value) else {
            throw ServeError("\(text.origin) \(text.text): expected a number in \(range)")
        }
        return value
    }
}
