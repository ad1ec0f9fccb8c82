import CLCMS2
import Foundation

/// One Little CMS profile handle, closed when the last reference goes. Lives only while a profile is read or a
/// transform is built: the transforms keep what they need of it.
final class LittleCMSProfile {
    let handle: cmsHPROFILE

    private init(_ handle: cmsHPROFILE) { self.handle = handle }

    deinit { cmsCloseProfile(handle) }

    /// Opens an ICC profile; `nil` when Little CMS cannot read it (corrupt, not a profile) or it is cut short.
    /// Little CMS itself trusts the data over the size the header declares, and reads tags lazily, so a cut
    /// profile would open and then fail (or read the wrong tags) later: the declared size is checked here.
    convenience init?(icc data: Data) {
        guard data.count >= 132, data.count <= ColorProfile.maximumICCSize,
              (Int(data[data.startIndex]) << 24 | Int(data[data.startIndex + 1]) << 16
                  | Int(data[data.startIndex + 2]) << 8 | Int(data[data.startIndex + 3])) <= data.count,
              let handle = data.withUnsafeBytes({ cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) })
        else { return nil }
        self.init(handle)
    }

    /// The sRGB profile Little CMS builds from IEC 61966-2-1.
    static func sRGB() -> LittleCMSProfile? {
        cmsCreate_sRGBProfile().map(LittleCMSProfile.init)
    }

    /// A matrix-shaper RGB profile from a white point and primaries (CIE xy) and one tone curve for all three
    /// channels, adapted to the ICC's D50 by Bradford, as every ICC writer does.
    static func rgb(white: ChromaticityXY, red: ChromaticityXY, green: ChromaticityXY, blue: ChromaticityXY,
                    curve: ToneCurveShape, description: String) -> LittleCMSProfile? {
        guard let tone = curve.makeCurve() else { return nil }
        defer { cmsFreeToneCurve(tone) }
        var whitePoint = cmsCIExyY(x: white.x, y: white.y, Y: 1)
        var primaries = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: red.x, y: red.y, Y: 1), Green: cmsCIExyY(x: green.x, y: green.y, Y: 1),
            Blue: cmsCIExyY(x: blue.x, y: blue.y, Y: 1))
        var curves: [OpaquePointer?] = [tone, tone, tone]
        let made = curves.withUnsafeMutableBufferPointer { curves in
            cmsCreateRGBProfile(&whitePoint, &primaries, curves.baseAddress)
        }
        guard let made else { return nil }
        let profile = LittleCMSProfile(made)
        profile.setDescription(description)
        return profile
    }

    /// A gray profile with one tone curve and a D65 white.
    static func gray(curve: ToneCurveShape, description: String) -> LittleCMSProfile? {
        guard let tone = curve.makeCurve() else { return nil }
        defer { cmsFreeToneCurve(tone) }
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        guard let made = cmsCreateGrayProfile(&white, tone) else { return nil }
        let profile = LittleCMSProfile(made)
        profile.setDescription(description)
        return profile
    }

    /// The profile's colour space: RGB, gray, CMYK, or another.
    var colorSpace: cmsColorSpaceSignature { cmsGetColorSpace(handle) }

    /// The profile's description tag in English, if it has one.
    var descriptionText: String? {
        let length = cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", nil, 0)
        guard length > 1, length < 4096 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(length))
        cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", &buffer, length)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// The red, green and blue colorants (D50 XYZ) of a matrix-shaper RGB profile.
    var colorants: [SIMD3<Double>]? {
        let tags = [cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag]
        var result: [SIMD3<Double>] = []
        for tag in tags {
            guard let raw = cmsReadTag(handle, tag) else { return nil }
            let xyz = raw.assumingMemoryBound(to: cmsCIEXYZ.self).pointee
            result.append(SIMD3(xyz.X, xyz.Y, xyz.Z))
        }
        return result
    }

    /// The tone curves of a matrix-shaper profile (R, G, B, or the one gray curve), evaluated at `x`.
    func curveValues(at x: Float) -> [Float]? {
        let tags = colorSpace == cmsSigGrayData
            ? [cmsSigGrayTRCTag] : [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag]
        var values: [Float] = []
        for tag in tags {
            guard let raw = cmsReadTag(handle, tag) else { return nil }
            values.append(cmsEvalToneCurveFloat(OpaquePointer(raw), x))
        }
        return values
    }

    /// The profile's (first) tone curve inverted, sampled at `size` evenly spaced points of linear light and
    /// rounded to 8-bit codes; `nil` when the curve cannot be read or inverted.
    func inverseCurveTable(size: Int) -> [UInt8]? {
        inverseCurveTable(size: size, codes: UInt8.self)
    }

    /// The same rounded to codes of `Code`'s width (16-bit codes for a conversion that keeps the depth).
    func inverseCurveTable<Code: FixedWidthInteger & UnsignedInteger>(size: Int, codes: Code.Type) -> [Code]? {
        let tag = colorSpace == cmsSigGrayData ? cmsSigGrayTRCTag : cmsSigRedTRCTag
        guard let raw = cmsReadTag(handle, tag), let reversed = cmsReverseToneCurve(OpaquePointer(raw)) else {
            return nil
        }
        defer { cmsFreeToneCurve(reversed) }
        let top = Float(Code.max)
        return (0..<size).map { index in
            let value = cmsEvalToneCurveFloat(reversed, Float(index) / Float(size - 1))
            return Code(min(max(value * top + 0.5, 0), top))
        }
    }

    /// Whether the profile is a matrix and three curves (or a gray curve), not lookup tables.
    var isMatrixShaper: Bool { cmsIsMatrixShaper(handle) != 0 }

    /// Whether the profile has a table for `intent` when used as the source of a transform.
    func hasTable(for intent: cmsUInt32Number) -> Bool {
        cmsIsCLUT(handle, intent, cmsUInt32Number(LCMS_USED_AS_INPUT)) != 0
    }

    /// The profile serialised as ICC bytes.
    func serialized() -> Data? {
        var size: cmsUInt32Number = 0
        guard cmsSaveProfileToMem(handle, nil, &size) != 0, size > 0 else { return nil }
        var data = Data(count: Int(size))
        let saved = data.withUnsafeMutableBytes { cmsSaveProfileToMem(handle, $0.baseAddress, &size) }
        return saved != 0 ? data.prefix(Int(size)) : nil
    }

    private func setDescription(_ text: String) {
        guard let mlu = cmsMLUalloc(nil, 1) else { return }
        defer { cmsMLUfree(mlu) }
        cmsMLUsetASCII(mlu, "en", "US", text)
        cmsWriteTag(handle, cmsSigProfileDescriptionTag, UnsafeRawPointer(mlu))
    }
}

/// A CIE 1931 xy chromaticity.
struct ChromaticityXY: Hashable, Sendable {
    var x: Double, y: Double
}

/// The tone curves the library builds profiles with.
enum ToneCurveShape: Hashable, Sendable {
    /// IEC 61966-2-1: a linear toe, then exponent 2.4.
    case sRGB
    /// A pure power law (1 is linear).
    case gamma(Double)
    /// Samples of a curve from 0 to 1, evenly spaced: the HDR curves with their tone mapping baked in.
    case table([Float])

    func makeCurve() -> OpaquePointer? {
        switch self {
        case .sRGB:
            let parameters: [cmsFloat64Number] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
            return cmsBuildParametricToneCurve(nil, 4, parameters)
        case .gamma(let exponent):
            guard exponent > 0, exponent.isFinite else { return nil }
            return cmsBuildGamma(nil, exponent)
        case .table(let samples):
            return cmsBuildTabulatedToneCurveFloat(nil, cmsUInt32Number(samples.count), samples)
        }
    }
}
