/// A browser's client hints about the image it is about to show (imgproxy's `IMGPROXY_ENABLE_CLIENT_HINTS`):
/// the screen's device pixel ratio and the width the image is laid out at, in physical pixels. A server that
/// reads them uses them where the URL sets no width or `dpr` of its own.
///
/// Each value comes from the first of its two headers that holds a valid one, the `Sec-CH-` name first:
/// `Sec-CH-DPR` then `DPR` (a number above 0 and at most 8), `Sec-CH-Width` then `Width` (a whole number above 0).
/// A header that is missing or invalid is passed over for the next.
///
/// Hints are quantised, because every distinct value is a distinct result that one signed URL would make the
/// server render: a ratio is rounded to 2 decimals (so `1.0100001` and `1.01` are one hint; one that rounds to 0
/// is ignored), giving at most 800 ratios; a width is a whole number of physical pixels, as imgproxy reads it,
/// which becomes a whole number of CSS pixels (``ProcessingOptions/applyClientHints(_:)``), capped at the
/// largest width a URL may ask for.
public struct ClientHints: Sendable, Hashable {
    /// The device pixel ratio the client reported, or `nil` when it sent none that is valid.
    public var devicePixelRatio: Double?
    /// The layout width in physical pixels the client reported, or `nil` when it sent none that is valid.
    public var width: Int?

    /// The most a device pixel ratio hint may be (above it the hint is ignored), as in imgproxy.
    public static let maximumDevicePixelRatio = 8.0

    /// The response header a server that reads client hints sends: the answer depends on all four request headers.
    public static let varyHeaderNames = ["Sec-Ch-Dpr", "Dpr", "Sec-Ch-Width", "Width"]

    /// Hints given directly.
    public init(devicePixelRatio: Double? = nil, width: Int? = nil) {
        self.devicePixelRatio = devicePixelRatio
        self.width = width
    }

    /// The hints in a request's headers, each header's value as received (`nil` when absent).
    public init(secCHDPR: String?, dpr: String?, secCHWidth: String?, width: String?) {
        devicePixelRatio = [secCHDPR, dpr].lazy.compactMap { $0.flatMap(Self.devicePixelRatio) }.first
        self.width = [secCHWidth, width].lazy.compactMap { $0.flatMap(Self.width) }.first
    }

    /// Whether the request carried no valid hint.
    public var isEmpty: Bool { devicePixelRatio == nil && width == nil }

    /// The steps a device pixel ratio hint is rounded to: hundredths, finer than any screen reports.
    static let devicePixelRatioSteps = 100.0

    /// A device pixel ratio header's value rounded to 2 decimals, or `nil` when it is not a number in (0, 8] or
    /// rounds to 0.
    static func devicePixelRatio(_ text: String) -> Double? {
        guard let value = Double(text), value > 0, value <= maximumDevicePixelRatio else { return nil }
        let rounded = (value * devicePixelRatioSteps).rounded(.toNearestOrAwayFromZero) / devicePixelRatioSteps
        return rounded > 0 ? rounded : nil
    }

    /// A width header's value, or `nil` when it is not a whole number above 0.
    static func width(_ text: String) -> Int? {
        guard let value = Int(text), value > 0 else { return nil }
        return value
    }
}

extension ProcessingOptions {
    /// Sets what `hints` say as the options' starting point, before the `default` preset and the URL's own
    /// options, which replace them: `dpr` from the device pixel ratio, and the width from the hinted width turned
    /// back into CSS pixels (divided by that ratio, rounded), since the width option is multiplied by `dpr` again.
    /// A width beyond what a URL may ask for is capped at that.
    mutating func applyClientHints(_ hints: ClientHints) {
        let ratio = hints.devicePixelRatio ?? 1
        if let hinted = hints.devicePixelRatio { dpr = hinted }
        if let hinted = hints.width {
            let css = (Double(hinted) / ratio).rounded(.toNearestOrAwayFromZero)
            width = min(Int(css), OptionArguments.maximumDimension)
        }
    }
}
