/// How a CMYK image's inks (a JPEG's, a TIFF's) become RGB: through its CMYK ICC profile with Little CMS when it
/// carries one (into sRGB, or Display P3 when asked), else by the naive formula of ``JPEGCMYKConversion``. RGBA
/// cannot hold inks, so even a decode that keeps the original colour converts them.
///
/// Not for users: `package`, for the decoders of CMYK formats in this package's other modules.
package struct CMYKColorConversion: Sendable {
    let profile: ColorProfile?
    let target: ColorTransform.Target

    /// The conversion for `profile` (ignored unless it describes CMYK) and `handling`.
    package init(profile: ColorProfile?, handling: DecodeOptions.ColorHandling) {
        self.profile = profile?.space == .cmyk ? profile : nil
        target = handling == .displayP3 ? .displayP3 : .sRGB
    }

    /// Whether a CMYK profile will be applied (otherwise the naive formula is).
    package var hasProfile: Bool { profile != nil }

    /// The profile the converted pixels carry: Display P3's when they were converted into it.
    package var resultProfile: ColorProfile? {
        target == .displayP3 && profile != nil ? .displayP3 : nil
    }

    /// Converts four-byte CMYK pixels to opaque RGBA in place; `inverted` when 0 means full ink (Adobe's files).
    package func convert(_ bytes: UnsafeMutableRawBufferPointer, inverted: Bool) {
        guard let profile, let base = bytes.baseAddress,
              let transform = ColorTransform.cached(from: profile, layout: .cmyk(inverted: inverted), to: target)
        else {
            JPEGCMYKConversion.convertToRGBA(bytes, inverted: inverted)
            return
        }
        transform.convert(UnsafeRawPointer(base), into: base, count: bytes.count / 4)
    }
}
