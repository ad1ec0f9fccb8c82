import CLCMS2
import Foundation

/// One transform from a source profile to sRGB or Display P3, for one pixel layout, built once per profile and
/// kept (``ColorTransform/cached(from:layout:to:)``): building one from a table-based profile costs
/// milliseconds, using it nanoseconds a pixel. Matrix-shaper RGB sources take ``MatrixShaperConversion`` (8-bit
/// samples) or ``DeepMatrixShaperConversion`` (16-bit); everything else (lookup-table profiles, gray, CMYK) Little
/// CMS.
final class ColorTransform: @unchecked Sendable {  // C boundary: lcms transforms built with cmsFLAGS_NOCACHE keep no state between calls, so many threads may use one
    /// How the source samples are laid out in the 4-byte pixels they are converted in.
    enum Layout: Hashable, Sendable {
        /// RGBA, alpha carried over.
        case rgba
        /// RGBA of 16 bits a sample in the machine's byte order, converted to 8 bits in the same step (so no
        /// precision is lost before the conversion), alpha carried over. Eight bytes a source pixel.
        case rgba16
        /// RGBA of 16 bits a sample in and out (machine byte order), alpha carried over: for images that keep their
        /// depth (``DecodeOptions/keepsHighBitDepth``). Eight bytes a pixel on both sides.
        case rgba16Kept
        /// A gray sample in R (G and B repeat it), alpha carried over.
        case grayInRGBA
        /// The same in RGBA16, converted to RGBA16 in place (``DecodeOptions/keepsHighBitDepth``): lcms writes R,
        /// G and B and leaves alpha as it is.
        case grayInRGBA16Kept
        /// Four ink samples; `inverted` when 0 means full ink (Adobe's files). The result is opaque.
        case cmyk(inverted: Bool)
    }

    /// The space converted into.
    enum Target: Hashable, Sendable {
        case sRGB, displayP3
    }

    private struct Key: Hashable {
        // Bytes, not `Data`: a `Data` held in this process-long cache is reported by LeakSanitizer at exit.
        let icc: [UInt8]
        let layout: Layout
        let target: Target
    }

    // Little CMS's transform, or a matrix-shaper path that does the same mapping (8-bit or deep samples):
    // exactly one is set. Optionals rather than an enum with payloads, which would hide tag bits in the arrays'
    // pointers and make LeakSanitizer take the tables for leaks.
    private let littleCMS: cmsHTRANSFORM?
    private let matrixShaper: MatrixShaperConversion?
    private let deepMatrixShaper: DeepMatrixShaperConversion?
    let layout: Layout

    private init(littleCMS: cmsHTRANSFORM?, matrixShaper: MatrixShaperConversion?,
                 deepMatrixShaper: DeepMatrixShaperConversion?, layout: Layout) {
        self.littleCMS = littleCMS
        self.matrixShaper = matrixShaper
        self.deepMatrixShaper = deepMatrixShaper
        self.layout = layout
    }

    deinit {
        if let littleCMS { cmsDeleteTransform(littleCMS) }
    }

    private static let cache = Locked<[Key: ColorTransform]>([:])
    /// Distinct profiles kept; a server sees a handful (sRGB variants, Display P3, Adobe RGB, a printer's CMYK).
    private static let cacheLimit = 64

    /// The transform from `profile` for `layout` to `target`; `nil` when Little CMS cannot build one (a profile
    /// of another colour space than the pixels, or one without the tables a transform needs).
    static func cached(from profile: ColorProfile, layout: Layout, to target: Target) -> ColorTransform? {
        let key = Key(icc: Array(profile.iccData), layout: layout, target: target)
        if let found = cache.withLock({ $0[key] }) { return found }
        guard let made = make(from: profile.iccData, layout: layout, to: target, exact: profile.space.isHDR)
        else { return nil }
        return cache.withLock { entries in
            if let raced = entries[key] { return raced }
            if entries.count >= cacheLimit { entries.removeAll() }  // rare: a fresh start beats bookkeeping
            entries[key] = made
            return made
        }
    }

    private static func make(from icc: Data, layout: Layout, to target: Target, exact: Bool) -> ColorTransform? {
        guard let source = LittleCMSProfile(icc: icc) else { return nil }
        let destination = target == .sRGB
            ? LittleCMSProfile.sRGB()
            : LittleCMSProfile(icc: ColorProfile.displayP3.iccData)
        guard let destination else { return nil }
        if layout == .rgba, let fast = MatrixShaperConversion(from: source, to: destination) {
            return ColorTransform(littleCMS: nil, matrixShaper: fast, deepMatrixShaper: nil, layout: layout)
        }
        if layout == .rgba16 || layout == .rgba16Kept,
           let deep = DeepMatrixShaperConversion(from: source, to: destination, keepingDepth: layout == .rgba16Kept) {
            return ColorTransform(littleCMS: nil, matrixShaper: nil, deepMatrixShaper: deep, layout: layout)
        }
        let inputFormat: cmsUInt32Number
        var flags = cmsUInt32Number(cmsFLAGS_NOCACHE)
        switch layout {
        case .rgba, .rgba16, .rgba16Kept:
            guard source.colorSpace == cmsSigRgbData else { return nil }
            inputFormat = layout == .rgba ? wi_type_rgba_8() : wi_type_rgba_16()
            // Little CMS scales the alpha it copies between the two depths.
            flags |= cmsUInt32Number(cmsFLAGS_COPY_ALPHA)
            // An HDR source that is not a matrix-shaper (a lookup-table PQ profile) is evaluated stage by stage:
            // optimised, Little CMS resamples the transform into a grid whose cells straddle the steep tone curve
            // and the clipping of colours outside the target (saturated pixels up to 30 levels off).
            if layout != .rgba && exact { flags |= cmsUInt32Number(cmsFLAGS_NOOPTIMIZE) }
        case .grayInRGBA, .grayInRGBA16Kept:
            guard source.colorSpace == cmsSigGrayData else { return nil }
            inputFormat = layout == .grayInRGBA ? wi_type_gray_in_rgba_8() : wi_type_gray_in_rgba_16()
        case .cmyk(let inverted):
            guard source.colorSpace == cmsSigCmykData else { return nil }
            inputFormat = inverted ? wi_type_cmyk_8_rev() : wi_type_cmyk_8()
        }
        // Perceptual where the profile has a table for it; otherwise relative colorimetric with black-point
        // compensation (matrix-shaper profiles, whose one mapping is colorimetric).
        let perceptual = cmsUInt32Number(INTENT_PERCEPTUAL)
        var intent = perceptual
        if !source.hasTable(for: perceptual) {
            intent = cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC)
            flags |= cmsUInt32Number(cmsFLAGS_BLACKPOINTCOMPENSATION)
        }
        let outputFormat = layout == .rgba16Kept || layout == .grayInRGBA16Kept ? wi_type_rgba_16() : wi_type_rgba_8()
        guard let handle = cmsCreateTransform(source.handle, inputFormat, destination.handle, outputFormat,
                                              intent, flags)
        else { return nil }
        return ColorTransform(littleCMS: handle, matrixShaper: nil, deepMatrixShaper: nil, layout: layout)
    }

    /// Converts `count` pixels from `source` into `destination`, four bytes a pixel, eight for the layouts that keep
    /// 16 bits (which may be the same memory when both sides have as many bytes a pixel: each pixel is read before it
    /// is written).
    func convert(_ source: UnsafeRawPointer, into destination: UnsafeMutableRawPointer, count: Int) {
        let keepsDepth = layout == .rgba16Kept || layout == .grayInRGBA16Kept
        let sourcePixelBytes = layout == .rgba16 || keepsDepth ? 8 : 4
        let destinationPixelBytes = keepsDepth ? 8 : 4
        if let deepMatrixShaper {
            deepMatrixShaper.convert(source.assumingMemoryBound(to: UInt16.self), into: destination, count: count)
        } else if let matrixShaper {
            matrixShaper.convert(source.assumingMemoryBound(to: UInt8.self),
                                 into: destination.assumingMemoryBound(to: UInt8.self), count: count)
        } else if let littleCMS {
            var done = 0
            while done < count {
                let chunk = min(count - done, 1 << 20)
                cmsDoTransform(littleCMS, source + done * sourcePixelBytes, destination + done * destinationPixelBytes,
                               cmsUInt32Number(chunk))
                done += chunk
            }
        }
        if case .cmyk = layout {
            // Four ink channels leave no alpha for lcms to carry: the result is opaque.
            var index = 3
            let bytes = destination.assumingMemoryBound(to: UInt8.self)
            while index < count * 4 {
                bytes[index] = 255
                index += 4
            }
        }
    }
}
