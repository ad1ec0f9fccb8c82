import CLCMS2
import Foundation
import WebImage

/// Little CMS called directly, as the reference the colour tests hold the library to: profiles written from
/// published primaries (what lcms's own tools do), lcms's transform of the same samples, and CIEDE2000.
public enum ColorReference {
    /// A CIE xy chromaticity.
    public typealias XY = (x: Double, y: Double)

    public static let d65: XY = (0.3127, 0.3290)
    public static let displayP3Primaries: [XY] = [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)]
    public static let adobeRGBPrimaries: [XY] = [(0.64, 0.33), (0.21, 0.71), (0.15, 0.06)]
    public static let sRGBPrimaries: [XY] = [(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)]

    /// The sRGB transfer as lcms's parametric type 4.
    public static let sRGBCurve: (type: Int32, parameters: [Double]) =
        (4, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])

    /// An ICC profile for an RGB space from its primaries, white and tone curve (parametric `type`).
    public static func rgbProfile(primaries: [XY], white: XY = d65, curve: (type: Int32, parameters: [Double]),
                                  description: String) -> Data {
        var whitePoint = cmsCIExyY(x: white.x, y: white.y, Y: 1)
        var triple = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: primaries[0].x, y: primaries[0].y, Y: 1),
            Green: cmsCIExyY(x: primaries[1].x, y: primaries[1].y, Y: 1),
            Blue: cmsCIExyY(x: primaries[2].x, y: primaries[2].y, Y: 1))
        let tone = cmsBuildParametricToneCurve(nil, curve.type, curve.parameters)
        defer { cmsFreeToneCurve(tone) }
        var curves: [OpaquePointer?] = [tone, tone, tone]
        let profile = curves.withUnsafeMutableBufferPointer { cmsCreateRGBProfile(&whitePoint, &triple, $0.baseAddress) }!
        defer { cmsCloseProfile(profile) }
        let mlu = cmsMLUalloc(nil, 1)
        cmsMLUsetASCII(mlu, "en", "US", description)
        cmsWriteTag(profile, cmsSigProfileDescriptionTag, UnsafeRawPointer(mlu))
        cmsMLUfree(mlu)
        return save(profile)
    }

    /// lcms's own sRGB profile.
    public static func sRGBProfile() -> Data {
        let profile = cmsCreate_sRGBProfile()!
        defer { cmsCloseProfile(profile) }
        return save(profile)
    }

    public static let displayP3 = rgbProfile(primaries: displayP3Primaries, curve: sRGBCurve, description: "Display P3")
    public static let adobeRGB = rgbProfile(primaries: adobeRGBPrimaries, curve: (1, [563.0 / 256]),
                                            description: "Adobe RGB (1998)")

    /// RGBA samples converted from `icc` to sRGB by lcms (perceptual intent; alpha copied).
    public static func toSRGB(_ rgba: [UInt8], from icc: Data) -> [UInt8] {
        let source = icc.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }!
        let destination = cmsCreate_sRGBProfile()!
        defer {
            cmsCloseProfile(source)
            cmsCloseProfile(destination)
        }
        let rgba8 = cmsUInt32Number(COLORSPACE_SH_RGB | 1 << 7 | 3 << 3 | 1)
        let transform = cmsCreateTransform(source, rgba8, destination, rgba8, cmsUInt32Number(INTENT_PERCEPTUAL),
                                           cmsUInt32Number(cmsFLAGS_COPY_ALPHA))!
        defer { cmsDeleteTransform(transform) }
        var output = [UInt8](repeating: 0, count: rgba.count)
        cmsDoTransform(transform, rgba, &output, cmsUInt32Number(rgba.count / 4))
        return output
    }

    /// CIEDE2000 between two sRGB images of the same size (alpha ignored): the mean and the 95th percentile.
    public static func deltaE(_ a: [UInt8], _ b: [UInt8]) -> (mean: Double, p95: Double) {
        precondition(a.count == b.count && !a.isEmpty)
        let labA = lab(a), labB = lab(b)
        var differences = (0..<labA.count).map { index -> Double in
            var first = labA[index], second = labB[index]
            return cmsCIE2000DeltaE(&first, &second, 1, 1, 1)
        }
        differences.sort()
        let mean = differences.reduce(0, +) / Double(differences.count)
        return (mean, differences[min(differences.count - 1, Int(Double(differences.count) * 0.95))])
    }

    /// A test picture that spans the gamut: hue and lightness ramps, saturated primaries and secondaries, grays.
    public static func gamutChart(width: Int = 64, height: Int = 48) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let u = Double(x) / Double(width - 1), v = Double(y) / Double(height - 1)
                let hue = u * 6, sector = Int(hue) % 6, f = hue - Double(Int(hue))
                let ramp: [Double] = [1, 1 - f, 0, 0, f, 1]
                let r = ramp[(sector + 0) % 6], g = ramp[(sector + 4) % 6], b = ramp[(sector + 2) % 6]
                let gray = v < 0.15 ? u : nil
                func channel(_ c: Double) -> UInt8 { UInt8(((gray ?? c * (1 - v * 0.7) + v * 0.2) * 255).rounded()) }
                bytes += [channel(r), channel(g), channel(b), 255]
            }
        }
        return bytes
    }

    private static let COLORSPACE_SH_RGB = UInt32(PT_RGB) << 16

    private static func lab(_ rgba: [UInt8]) -> [cmsCIELab] {
        let source = cmsCreate_sRGBProfile()!
        let destination = cmsCreateLab4Profile(nil)!
        defer {
            cmsCloseProfile(source)
            cmsCloseProfile(destination)
        }
        let rgba8 = cmsUInt32Number(COLORSPACE_SH_RGB | 1 << 7 | 3 << 3 | 1)
        let labDouble = cmsUInt32Number(UInt32(PT_Lab) << 16 | 3 << 3 | 0 | 1 << 22)  // FLOAT_SH(1), BYTES 0 = double
        let transform = cmsCreateTransform(source, rgba8, destination, labDouble,
                                           cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC), 0)!
        defer { cmsDeleteTransform(transform) }
        var output = [cmsCIELab](repeating: cmsCIELab(), count: rgba.count / 4)
        cmsDoTransform(transform, rgba, &output, cmsUInt32Number(rgba.count / 4))
        return output
    }

    private static func save(_ profile: cmsHPROFILE) -> Data {
        var size: cmsUInt32Number = 0
        cmsSaveProfileToMem(profile, nil, &size)
        var data = Data(count: Int(size))
        _ = data.withUnsafeMutableBytes { cmsSaveProfileToMem(profile, $0.baseAddress, &size) }
        return data
    }
}
