import WebImage

/// imgproxy Pro's autoquality, in the open: instead of one quality for every image, each result's quality is
/// searched for (`WebImage.ImageCoders.encode(_:as:options:target:qualityRange:)`) between a minimum and a
/// maximum: the highest whose output fits a byte target (`size`), or the one whose DSSIM against the unencoded
/// result, (1 − SSIM) / 2 on its own pixels at its size, is within the allowed error of the target (`dssim`; `ml`,
/// imgproxy's model-guided variant, is `dssim` here, as imgproxy falls back to it without a model). A bisection
/// over the range: a range of 11 qualities (70–80, the default) takes at most 4 encodes, each decoded and
/// measured. Lossy formats only (JPEG, WebP, AVIF, JPEG XL) and still results (an animation keeps the fixed
/// quality).
public struct AutoqualitySettings: Sendable, Hashable {
    /// The method when a URL names none (`IMGPROXY_AUTOQUALITY_METHOD`). Default `none`.
    public var method = ProcessingOptions.Autoquality.Method.none
    /// Bytes for `size`, a DSSIM for `dssim` (`IMGPROXY_AUTOQUALITY_TARGET`). Default 0.02.
    public var target = 0.02
    /// The lowest quality (`IMGPROXY_AUTOQUALITY_MIN`). Default 70.
    public var minimum = 70
    /// The lowest quality per format, over ``minimum`` (`IMGPROXY_AUTOQUALITY_FORMAT_MIN`). Default AVIF 60.
    public var formatMinimum: [OutputFormat: Int] = [.avif: 60]
    /// The highest quality (`IMGPROXY_AUTOQUALITY_MAX`). Default 80.
    public var maximum = 80
    /// The highest quality per format, over ``maximum`` (`IMGPROXY_AUTOQUALITY_FORMAT_MAX`). Default AVIF 65.
    public var formatMaximum: [OutputFormat: Int] = [.avif: 65]
    /// How far from a DSSIM target is close enough (`IMGPROXY_AUTOQUALITY_ALLOWED_ERROR`). Default 0.002.
    public var allowedError = 0.002
    /// Results with more pixels keep the fixed quality (`IMGPROXY_AUTOQUALITY_MAX_RESOLUTION`); `nil`: no limit.
    public var maximumPixels: Int?

    /// imgproxy's defaults (autoquality off).
    public init() {}

    /// The search for a result of `image` in `format` under the URL's `override`, as a target and a range of
    /// qualities; `nil` when the fixed quality applies (method `none`, a lossless or animated result, one over
    /// ``maximumPixels``).
    func search(for format: OutputFormat, image: Image, override: ProcessingOptions.Autoquality?)
        -> (target: EncodeTarget, range: ClosedRange<Int>)?
    {
        let method = override?.method ?? self.method
        guard method != .none, [.jpeg, .webp, .avif, .jxl].contains(format), image.frames.count == 1,
              maximumPixels.map({ image.size.area <= $0 }) ?? true else { return nil }
        let low = override?.minimum ?? formatMinimum[format] ?? minimum
        let high = max(low, override?.maximum ?? formatMaximum[format] ?? maximum)
        let target = override?.target ?? self.target
        switch method {
        case .size:
            return (.bytes(max(1, Int(target))), low...high)
        default:
            return (.dssim(min(max(target, 0), 1), allowedError: override?.allowedError ?? allowedError), low...high)
        }
    }

    /// What a result key must say about these settings.
    var cacheKey: String {
        let perFormat = { (values: [OutputFormat: Int]) in
            values.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }
                .joined(separator: ",")
        }
        return "\(method.rawValue):\(target):\(minimum):\(perFormat(formatMinimum)):\(maximum):"
            + "\(perFormat(formatMaximum)):\(allowedError):\(maximumPixels.map(String.init) ?? "-")"
    }
}
