import CAVIF
import Foundation
import WebImage

/// The colour description of a parsed AVIF image: its ICC profile (`colr` of type `prof`/`rICC`) when it has
/// one, else its code points (`nclx`). BT.709's transfer curves are read as sRGB's, as browsers show them, so
/// the many files written as BT.709 with BT.709 primaries need no conversion.
enum AVIFColorProfile {
    static func profile(of image: UnsafePointer<avifImage>) -> ColorProfile? {
        let icc = image.pointee.icc
        if let data = icc.data, icc.size > 0 {
            guard icc.size <= ColorProfile.maximumICCSize else { return nil }
            let profile = ColorProfile(icc: Data(UnsafeRawBufferPointer(start: data, count: icc.size)))
            return profile?.isSRGB == true ? nil : profile
        }
        var transfer = image.pointee.transferCharacteristics
        if [1, 6, 14, 15].contains(transfer) { transfer = 13 }
        let points = ColorCodePoints(primaries: image.pointee.colorPrimaries, transfer: transfer,
                                     matrix: image.pointee.matrixCoefficients,
                                     fullRange: image.pointee.yuvRange == AVIF_RANGE_FULL)
        guard let profile = ColorProfile(codePoints: points), !profile.isSRGB else { return nil }
        return profile
    }
}
