import CJXL
import Foundation
import WebImage

extension JXLDecoderHandle {
    /// The colour description libjxl reports for `target` (the file's original, or the pixels it outputs),
    /// available from the ``JXL_DEC_COLOR_ENCODING`` event on: its structured encoding as code points when the
    /// file has one (with `contentPeak`, the header's intensity target, for a PQ image's tone mapping), else its
    /// ICC profile. `nil` for sRGB, or for a description that cannot be read.
    func colorProfile(_ target: JxlColorProfileTarget, contentPeak: Double?) -> ColorProfile? {
        var encoding = JxlColorEncoding()
        if JxlDecoderGetColorAsEncodedProfile(decoder, nil, target, &encoding) == JXL_DEC_SUCCESS {
            if let points = Self.codePoints(encoding, contentPeak: contentPeak) {
                return ColorProfile(codePoints: points)?.unlessSRGB
            }
        }
        var size = 0
        guard JxlDecoderGetICCProfileSize(decoder, nil, target, &size) == JXL_DEC_SUCCESS, size > 0,
              size <= ColorProfile.maximumICCSize else { return nil }
        var icc = Data(count: size)
        let status = icc.withUnsafeMutableBytes {
            JxlDecoderGetColorAsICCProfile(decoder, nil, target, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), size)
        }
        guard status == JXL_DEC_SUCCESS else { return nil }
        return ColorProfile(icc: icc)?.unlessSRGB
    }

    /// A structured JPEG XL colour encoding as H.273 code points (with `contentPeak` for PQ), when it is an RGB one
    /// they can express.
    private static func codePoints(_ encoding: JxlColorEncoding, contentPeak: Double?) -> ColorCodePoints? {
        guard encoding.color_space == JXL_COLOR_SPACE_RGB else { return nil }
        let primaries: UInt16
        switch (encoding.primaries, encoding.white_point) {
        case (JXL_PRIMARIES_SRGB, JXL_WHITE_POINT_D65): primaries = 1
        case (JXL_PRIMARIES_2100, JXL_WHITE_POINT_D65): primaries = 9
        case (JXL_PRIMARIES_P3, JXL_WHITE_POINT_D65): primaries = 12
        case (JXL_PRIMARIES_P3, JXL_WHITE_POINT_DCI): primaries = 11
        default: return nil
        }
        let transfer: UInt16
        switch encoding.transfer_function {
        case JXL_TRANSFER_FUNCTION_SRGB: transfer = 13
        case JXL_TRANSFER_FUNCTION_709: transfer = 1
        case JXL_TRANSFER_FUNCTION_LINEAR: transfer = 8
        case JXL_TRANSFER_FUNCTION_PQ: transfer = 16
        case JXL_TRANSFER_FUNCTION_HLG: transfer = 18
        case JXL_TRANSFER_FUNCTION_GAMMA where abs(encoding.gamma - 1 / 2.2) < 0.001: transfer = 4
        case JXL_TRANSFER_FUNCTION_GAMMA where abs(encoding.gamma - 1 / 2.8) < 0.001: transfer = 5
        default: return nil
        }
        return ColorCodePoints(primaries: primaries, transfer: transfer, contentPeak: contentPeak)
    }
}
