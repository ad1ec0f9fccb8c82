import Foundation
import WebImageCore

extension ProcessingOptions {
    /// The options that change pixels after the geometry: filters, overlays, background.
    mutating func applyEffect(_ arguments: OptionArguments) throws(ProxyError) -> Bool {
        switch arguments.name {
        case "background", "bg":
            background = try arguments.color(from: 0)
        case "blur", "bl":
            try arguments.allow(at: 1)
            blur = try arguments.required(arguments.number(0, in: 0...100))
        case "sharpen", "sh":
            try arguments.allow(at: 1)
            sharpen = try arguments.required(arguments.number(0, in: 0...100))
        case "pixelate", "pix":
            try arguments.allow(at: 1)
            pixelate = try arguments.required(arguments.integer(0, in: 0...16_384))
        case "watermark", "wm":
            try arguments.allow(at: 7)
            let opacity = try arguments.required(arguments.number(0, in: 0...1))
            var mark = Watermark(opacity: opacity)
            if let position = arguments.text(1) {
                if position == "re" {
                    mark.position = nil
                } else {
                    guard let anchor = Gravity.Anchor(rawValue: position), anchor != .smart, anchor != .focusPoint
                    else { throw .invalidURL("watermark: position \"\(position.prefix(20))\" is not a gravity or re") }
                    mark.position = anchor
                }
            }
            let limit = 1_000_000.0
            mark.x = try arguments.number(2, in: -limit...limit) ?? 0
            mark.y = try arguments.number(3, in: -limit...limit) ?? 0
            mark.scale = try arguments.positiveNumber(4, upTo: 1_000) ?? 0
            watermark = opacity > 0 ? mark : nil
        case "round":
            try arguments.allow(at: 1)
            cornerRadius = try arguments.required(arguments.number(0, in: 0...100_000))
        default:
            return false
        }
        return true
    }

    /// The options about metadata, encoding and the answer rather than pixels.
    mutating func applyHandling(_ arguments: OptionArguments) throws(ProxyError) -> Bool {
        switch arguments.name {
        case "quality", "q":
            try arguments.allow(at: 1)
            quality = try arguments.required(arguments.integer(0, in: 0...100))
        case "format_quality", "fq":
            let all = arguments.all
            guard all.count % 2 == 0 else { throw .invalidURL("format_quality takes pairs of format and quality") }
            for pair in stride(from: 0, to: all.count, by: 2) {
                guard let format = OutputFormat(name: all[pair].lowercased()) else {
                    throw .invalidURL("format_quality: \"\(all[pair].prefix(20))\" is not a format")
                }
                guard let value = Int(all[pair + 1]), (0...100).contains(value) else {
                    throw .invalidURL("format_quality: \"\(all[pair + 1].prefix(20))\" is not a quality in 0…100")
                }
                formatQuality[format] = value
            }
        case "max_bytes", "mb":
            try arguments.allow(at: 1)
            maxBytes = try arguments.required(arguments.integer(0, in: 0...Int(Int32.max)))
        case "format", "f", "ext":
            try arguments.allow(at: 1)
            let name = try arguments.required(arguments.text(0)).lowercased()
            if name == "best" {
                (format, bestFormat) = (nil, true)
                return true
            }
            guard let format = OutputFormat(name: name) else {
                throw .invalidURL("format \"\(name.prefix(20))\" is not a format this server knows")
            }
            (self.format, bestFormat) = (format, false)
        case "strip_metadata", "sm":
            try arguments.allow(at: 1)
            stripMetadata = arguments.bool(0) ?? false
        case "keep_copyright", "kcr":
            try arguments.allow(at: 1)
            keepCopyright = arguments.bool(0) ?? false
        case "strip_color_profile", "scp":
            try arguments.allow(at: 1)
            stripColorProfile = arguments.bool(0) ?? false
        case "preserve_hdr", "ph":
            try arguments.allow(at: 1)
            preserveHDR = arguments.bool(0) ?? false
        case "enforce_thumbnail", "eth":
            try arguments.allow(at: 1)
            enforceThumbnail = arguments.bool(0) ?? false
        case "skip_processing", "skp":
            for name in arguments.all {
                guard let format = Self.sourceFormatName(name) else {
                    throw .invalidURL("skip_processing: \"\(name.prefix(20))\" is not a format")
                }
                skipProcessing.insert(format)
            }
        case "raw":
            try arguments.allow(at: 1)
            raw = arguments.bool(0) ?? false
        case "autoquality", "aq":
            try arguments.allow(at: 5)
            var autoquality = Autoquality()
            if let name = arguments.text(0) {
                guard let method = Autoquality.Method(rawValue: name) else {
                    throw .invalidURL("autoquality: \"\(name.prefix(20))\" is not none, size, dssim or ml")
                }
                autoquality.method = method
            }
            autoquality.target = try arguments.number(1, in: 0...Double(Int32.max))
            autoquality.minimum = try arguments.integer(2, in: 1...100)
            autoquality.maximum = try arguments.integer(3, in: 1...100)
            autoquality.allowedError = try arguments.number(4, in: 0...1)
            self.autoquality = autoquality
        case "cachebuster", "cb":
            try arguments.allow(at: 1)
            cacheBuster = arguments.text(0) ?? ""
        case "expires", "exp":
            expires = try arguments.expiry()
        case "filename", "fn":
            try arguments.allow(at: 2)
            let name = try arguments.required(arguments.text(0))
            if arguments.has(1), arguments.bool(1) == true {
                guard let bytes = Base64URL.decode(name.filter { $0 != "=" }[...]),
                      let decoded = String(validating: bytes, as: UTF8.self)
                else { throw .invalidURL("filename: \"\(name.prefix(20))\" is not URL-safe Base64 of text") }
                filename = decoded
            } else {
                filename = name.removingPercentEncoding ?? name
            }
        case "return_attachment", "att":
            try arguments.allow(at: 1)
            returnAttachment = arguments.bool(0) ?? false
        default:
            return false
        }
        return true
    }

    /// imgproxy's name for a detected source format, or `nil` for one it does not know. imgproxy calls every HEIF
    /// file `heic`, so a file with the generic `mif1` brand (``ImageFormat/heif`` here) is `heic` too.
    package static func sourceFormatName(of format: ImageFormat) -> String? {
        sourceFormatName(format == .heif ? ImageFormat.heic.rawValue : format.rawValue)
    }

    /// imgproxy's name for a source format (`jpg` is `jpeg`), or `nil` for a name it does not know.
    package static func sourceFormatName(_ name: String) -> String? {
        let lowered = name.lowercased()
        let known: Set = ["jpeg", "png", "webp", "avif", "gif", "ico", "svg", "heic", "bmp", "tiff", "jxl", "pdf"]
        if lowered == "jpg" { return "jpeg" }
        if lowered == "tif" { return "tiff" }
        return known.contains(lowered) ? lowered : nil
    }
}
