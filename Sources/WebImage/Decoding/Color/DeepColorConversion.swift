/// The colour conversion of a deep source (16-bit PNG, 10 and 12-bit AVIF), done while its samples still have all
/// their bits: Little CMS takes RGBA of 16 bits a sample straight to the 8-bit samples
/// ``DecodeOptions/colorHandling`` asks for. Converting after rounding to 8 bits would lose what the extra bits
/// hold; for PQ and HLG sources, whose tone mapping is part of the transform, most of their darker tones.
///
/// Not for users: `package`, for the decoders of deep formats in this package's other modules.
package struct DeepColorConversion: Sendable {
    private let transform: ColorTransform
    /// The profile the converted image carries: `nil` for sRGB, ``ColorProfile/displayP3`` for Display P3.
    package let resultProfile: ColorProfile?

    /// The conversion of samples described by `profile` for `handling`; `nil` when there is nothing to convert
    /// (no profile, samples kept, already the target's space, CMYK, or gray going to 8 bits) or Little CMS cannot
    /// build it. The decoder then rounds to 8 bits and the usual conversion follows.
    /// With `keepingDepth` the result has 16 bits a sample too (``DecodeOptions/keepsHighBitDepth``); a gray
    /// profile's conversion (gray in R of RGBA16) must then be done in place, as it leaves alpha where it is.
    package init?(from profile: ColorProfile?, for handling: DecodeOptions.ColorHandling, keepingDepth: Bool = false) {
        guard let profile, profile.space != .cmyk, keepingDepth || profile.space != .gray else { return nil }
        let target: ColorTransform.Target
        switch handling {
        case .original: return nil
        case .sRGB:
            guard !profile.isSRGB else { return nil }
            target = .sRGB
        case .displayP3:
            guard profile.space != .displayP3 else { return nil }
            target = .displayP3
        }
        let layout: ColorTransform.Layout = switch (profile.space == .gray, keepingDepth) {
        case (true, _): .grayInRGBA16Kept
        case (false, true): .rgba16Kept
        case (false, false): .rgba16
        }
        guard let transform = ColorTransform.cached(from: profile, layout: layout, to: target) else { return nil }
        self.transform = transform
        resultProfile = target == .displayP3 ? .displayP3 : nil
    }

    /// Converts `count` pixels of RGBA16 (machine byte order, alpha straight) into RGBA8, or into RGBA16 for a
    /// conversion that keeps the depth (the same memory may be both then).
    package func convert(_ rgba16: UnsafeRawPointer, into rgba8: UnsafeMutableRawPointer, count: Int) {
        transform.convert(rgba16, into: rgba8, count: count)
    }
}
