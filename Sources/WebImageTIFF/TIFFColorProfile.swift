import CTIFF
import Foundation
import WebImage

/// The ICC profile of the current TIFF directory (tag 34675), read while the page is the current one. A CMYK
/// page's profile is applied by ``TIFFColorManagedReader``; an RGB or gray page's by the shared conversion, or
/// from the 16-bit samples by that reader.
enum TIFFColorProfile {
    static func profile(of tiff: OpaquePointer) -> ColorProfile? {
        var count: UInt32 = 0
        var data: UnsafeMutableRawPointer?
        guard webimage_tiff_get_icc_profile(tiff, &count, &data) != 0, let data, count > 0,
              Int(count) <= ColorProfile.maximumICCSize else { return nil }
        return ColorProfile(icc: Data(bytes: data, count: Int(count)))?.unlessSRGB
    }
}
