import CAVIF
import Foundation
import WebImage

/// The colour description of a parsed AVIF image: its ICC profile (`colr` of type `prof`/`rICC`) when it has
/// one, else its code points (`nclx`) with `contentPeak` (the file's, for a PQ image's tone mapping).
enum AVIFColorProfile {
    static func profile(of image: UnsafePointer<avifImage>, contentPeak: Double?) -> ColorProfile? {
        let icc = image.pointee.icc
        if let data = icc.data, icc.size > 0 {
            guard icc.size <= ColorProfile.maximumICCSize else { return nil }
            return ColorProfile(icc: Data(UnsafeRawBufferPointer(start: data, count: icc.size)))?.unlessSRGB
        }
        let points = ColorCodePoints(primaries: image.pointee.colorPrimaries,
                                     transfer: image.pointee.transferCharacteristics,
                                     matrix: image.pointee.matrixCoefficients,
                                     fullRange: image.pointee.yuvRange == AVIF_RANGE_FULL,
                                     contentPeak: contentPeak)
        return ColorProfile(codePoints: points)?.unlessSRGB
    }
}
