import CHeif
import Foundation
import WebImage

/// The colour description of a HEIF image item: its ICC profile (`colr` of type `prof`/`rICC`) when it has
/// one, else its code points (`nclx`), with `contentPeak` (the file's, for a PQ image's tone mapping).
enum HEIFColorProfile {
    static func profile(of handle: OpaquePointer, contentPeak: Double?) -> ColorProfile? {
        let type = heif_image_handle_get_color_profile_type(handle)
        if type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC {
            let size = heif_image_handle_get_raw_color_profile_size(handle)
            guard size > 0, size <= ColorProfile.maximumICCSize else { return nil }
            var icc = Data(count: size)
            let error = icc.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
            guard error.code == heif_error_Ok else { return nil }
            return ColorProfile(icc: icc)?.unlessSRGB
        }
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        let status = heif_image_handle_get_nclx_color_profile(handle, &nclx)
        // libheif hands the profile out even with an error (values it does not know): it is freed either way.
        defer { if let nclx { heif_nclx_color_profile_free(nclx) } }
        guard status.code == heif_error_Ok, let nclx else { return nil }
        let points = ColorCodePoints(primaries: UInt16(nclx.pointee.color_primaries.rawValue),
                                     transfer: UInt16(nclx.pointee.transfer_characteristics.rawValue),
                                     matrix: UInt16(nclx.pointee.matrix_coefficients.rawValue),
                                     fullRange: nclx.pointee.full_range_flag != 0, contentPeak: contentPeak)
        return ColorProfile(codePoints: points)?.unlessSRGB
    }
}
