/// The colour space an image's samples are in, by name: what `webimage info` reports as `colorSpace`.
///
/// A file's description is recognised from what it measures, not from its label: an ICC profile whose primaries,
/// white point and tone curves match Display P3's is ``displayP3`` whatever its description says.
public enum ColorSpace: String, Sendable, Hashable, CaseIterable {
    /// sRGB (IEC 61966-2-1), and what an untagged colour image is taken to be.
    case sRGB = "srgb"
    /// Display P3: DCI-P3 primaries, D65 white, the sRGB tone curve. What iPhones and most Macs photograph in.
    case displayP3 = "display-p3"
    /// Adobe RGB (1998): wider greens, gamma 563/256.
    case adobeRGB = "adobe-rgb"
    /// BT.2020 primaries with an SDR tone curve.
    case bt2020
    /// BT.2100 with the PQ (SMPTE ST 2084) transfer: HDR, absolute luminance up to 10 000 cd/m².
    case bt2100PQ = "bt2100-pq"
    /// BT.2100 with the hybrid log-gamma transfer: HDR, relative to the display's peak.
    case bt2100HLG = "bt2100-hlg"
    /// One gray channel (a gray ICC profile, or an untagged grayscale file).
    case gray
    /// Four ink channels (a CMYK JPEG or TIFF).
    case cmyk
    /// An ICC profile that is none of the above; ``ColorProfile/name`` has its description.
    case icc

    /// Whether samples in this space are high dynamic range and need tone mapping to be shown as SDR.
    public var isHDR: Bool { self == .bt2100PQ || self == .bt2100HLG }
}

/// A colour description by code points (ITU-T H.273, "CICP"): what AVIF and HEIF `nclx` boxes, JPEG XL's encoded
/// colour and PNG's `cICP` chunk carry instead of an ICC profile.
public struct ColorCodePoints: Sendable, Hashable, CustomStringConvertible {
    /// Colour primaries: 1 BT.709/sRGB, 9 BT.2020, 12 Display P3 (SMPTE EG 432-1), 11 DCI-P3, 2 unspecified.
    public var primaries: UInt16
    /// Transfer characteristics: 13 sRGB, 1/6/14/15 BT.709 (shown as sRGB), 16 PQ, 18 HLG, 8 linear, 4 gamma 2.2,
    /// 5 gamma 2.8.
    public var transfer: UInt16
    /// Matrix coefficients (how luma and chroma were formed; the decoders have already undone them).
    public var matrix: UInt16
    /// Whether samples use the full range (true for every RGB image here).
    public var fullRange: Bool
    /// For a PQ source, the brightest light its content holds, in cd/m²: what its tone mapping compresses to SDR
    /// white's neighbourhood. Not a code point, but told beside them: a file's content light level (`clli`,
    /// MaxCLL), else its mastering display's peak (`mdcv`), else JPEG XL's intensity target. `nil` when the file
    /// says nothing (1 000 cd/m² is assumed then), and for every other transfer: HLG is relative to its display,
    /// and SDR has no use for it.
    public var contentPeak: Double?

    /// Creates code points.
    public init(primaries: UInt16, transfer: UInt16, matrix: UInt16 = 0, fullRange: Bool = true,
                contentPeak: Double? = nil) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.fullRange = fullRange
        self.contentPeak = transfer == 16 ? contentPeak : nil
    }

    /// sRGB: BT.709 primaries, the sRGB transfer.
    public static let sRGB = ColorCodePoints(primaries: 1, transfer: 13, matrix: 6)
    /// Display P3: P3 primaries with D65 white, the sRGB transfer.
    public static let displayP3 = ColorCodePoints(primaries: 12, transfer: 13, matrix: 6)

    public var description: String {
        let peak = transfer == 16 ? contentPeak.map { ", peak \(Int($0.rounded())) cd/m²" } ?? "" : ""
        return "CICP \(primaries)/\(transfer)/\(matrix)\(fullRange ? "" : " (limited range)")\(peak)"
    }
}
