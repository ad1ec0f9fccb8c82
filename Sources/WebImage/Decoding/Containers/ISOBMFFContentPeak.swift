/// The content peak an AVIF or HEIF file states for its HDR image, read from its item properties (`meta` →
/// `iprp` → `ipco`): the content light level's MaxCLL (`clli`, ISO/IEC 23008-12 with CTA-861.3's fields), else
/// the mastering display's maximum luminance (`mdcv`, SMPTE ST 2086, in 0.0001 cd/m²). The first property of
/// each kind is taken: image files carry one, for their primary image. libavif 0.11 exposes neither, and
/// libheif only on a decoded image; the tone curve is built before decoding.
package enum ISOBMFFContentPeak {
    /// The peak in cd/m², or `nil` when the file states none (or states zero, CTA-861.3's "unknown").
    package static func read(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard let meta = ISOBMFFBoxes.boxes(in: bytes).first(where: { $0.type == "meta" }), meta.payload.count > 4,
              let ipco = ISOBMFFBoxes.payload(at: ["iprp", "ipco"],
                                              in: meta.payload.lowerBound + 4..<meta.payload.upperBound, of: bytes)
        else { return nil }
        let properties = ISOBMFFBoxes.boxes(in: bytes, range: ipco)
        if let clli = properties.first(where: { $0.type == "clli" }), clli.payload.count >= 4 {
            let maxCLL = ISOBMFFBoxes.bigEndian(bytes, at: clli.payload.lowerBound, count: 2)
            if maxCLL > 0 { return Double(maxCLL) }
        }
        // Three primaries and a white point (16 bytes of chromaticities), then the maximum and minimum luminance.
        if let mdcv = properties.first(where: { $0.type == "mdcv" }), mdcv.payload.count >= 24 {
            let maximum = ISOBMFFBoxes.bigEndian(bytes, at: mdcv.payload.lowerBound + 16, count: 4)
            if maximum > 0 { return Double(maximum) / 10_000 }
        }
        return nil
    }
}
