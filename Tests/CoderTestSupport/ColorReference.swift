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

    // Made on each use: a `Data` kept in a global until exit is reported by LeakSanitizer (RELIABILITY.md).
    public static var displayP3: Data {
        rgbProfile(primaries: displayP3Primaries, curve: sRGBCurve, description: "Display P3")
    }
    public static var adobeRGB: Data {
        rgbProfile(primaries: adobeRGBPrimaries, curve: (1, [563.0 / 256]), description: "Adobe RGB (1998)")
    }

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

    /// RGBA samples of 16 bits (machine byte order) converted from `icc` to 8-bit sRGB by lcms in one step
    /// (perceptual intent; alpha copied), each pixel through the profiles' curves and matrices exactly: what a
    /// deep source's conversion should give. (Optimised, lcms resamples such a transform into a grid, whose
    /// interpolation puts colours clipped at sRGB's gamut up to a dozen levels off.)
    public static func toSRGB(sixteenBit rgba: [UInt16], from icc: Data) -> [UInt8] {
        let source = icc.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }!
        let destination = cmsCreate_sRGBProfile()!
        defer {
            cmsCloseProfile(source)
            cmsCloseProfile(destination)
        }
        let transform = cmsCreateTransform(source, wi_type_rgba_16(), destination, wi_type_rgba_8(),
                                           cmsUInt32Number(INTENT_PERCEPTUAL),
                                           cmsUInt32Number(cmsFLAGS_COPY_ALPHA | cmsFLAGS_NOOPTIMIZE))!
        defer { cmsDeleteTransform(transform) }
        var output = [UInt8](repeating: 0, count: rgba.count)
        cmsDoTransform(transform, rgba, &output, cmsUInt32Number(rgba.count / 4))
        return output
    }

    /// The largest difference between two images' samples.
    public static func largestDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    /// How many samples differ from a deep source's 16-bit `reference` conversion: in the `converted` decode, and in
    /// Little CMS's conversion (from `icc`) of the `stored` samples, rounded to 8 bits as a decode that keeps the
    /// original colour gives them. A deep path is what keeps the first count far below the second.
    public static func differingSamples(converted: [UInt8], stored: [UInt8], icc: Data,
                                        reference: [UInt8]) -> (fromEightBits: Int, ours: Int) {
        let fromEightBits = toSRGB(stored, from: icc)
        return (zip(fromEightBits, reference).filter { $0 != $1 }.count, zip(converted, reference).filter { $0 != $1 }.count)
    }

    /// A CMYK output profile with a lookup table (A2B0, 9 points a side) built by lcms: each ink darkens as in
    /// the naive conversion, with 20% more dot gain, so that applying it differs visibly from ignoring it.
    public static func cmykProfile() -> Data {
        let profile = cmsCreateProfilePlaceholder(nil)!
        defer { cmsCloseProfile(profile) }
        cmsSetProfileVersion(profile, 4.3)
        cmsSetDeviceClass(profile, cmsSigOutputClass)
        cmsSetColorSpace(profile, cmsSigCmykData)
        cmsSetPCS(profile, cmsSigLabData)
        let rgbDouble = cmsUInt32Number(COLORSPACE_SH_RGB | 3 << 3 | 0 | 1 << 22)
        let labDouble = cmsUInt32Number(UInt32(PT_Lab) << 16 | 3 << 3 | 0 | 1 << 22)
        let sRGB = cmsCreate_sRGBProfile()!, lab = cmsCreateLab4Profile(nil)!
        let toLab = cmsCreateTransform(sRGB, rgbDouble, lab, labDouble, cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC), 0)!
        defer {
            cmsDeleteTransform(toLab)
            cmsCloseProfile(sRGB)
            cmsCloseProfile(lab)
        }
        let pipeline = cmsPipelineAlloc(nil, 4, 3)!
        let table = cmsStageAllocCLut16bit(nil, 9, 4, 3, nil)!
        cmsStageSampleCLut16bit(table, { input, output, cargo in
            guard let input, let output, let cargo else { return 0 }
            let ink = (0..<4).map { pow(Double(input[$0]) / 65_535, 0.8) }
            var rgb = (0..<3).map { (1 - ink[$0]) * (1 - ink[3]) }
            var color = cmsCIELab()
            cmsDoTransform(cargo, &rgb, &color, 1)
            cmsFloat2LabEncoded(output, &color)
            return 1
        }, toLab, 0)
        // The lutAtoBType layout lcms writes: identity A curves, the table, identity B curves.
        cmsPipelineInsertStage(pipeline, cmsAT_END, cmsStageAllocToneCurves(nil, 4, nil))
        cmsPipelineInsertStage(pipeline, cmsAT_END, table)
        cmsPipelineInsertStage(pipeline, cmsAT_END, cmsStageAllocToneCurves(nil, 3, nil))
        cmsWriteTag(profile, cmsSigAToB0Tag, UnsafeRawPointer(pipeline))
        cmsPipelineFree(pipeline)
        cmsWriteTag(profile, cmsSigMediaWhitePointTag, UnsafeRawPointer(cmsD50_XYZ()))
        let mlu = cmsMLUalloc(nil, 1)
        cmsMLUsetASCII(mlu, "en", "US", "Test CMYK")
        cmsWriteTag(profile, cmsSigProfileDescriptionTag, UnsafeRawPointer(mlu))
        cmsMLUfree(mlu)
        return save(profile)
    }

    /// CMYK samples (four bytes a pixel; `inverted` when 0 is full ink, as Adobe stores them) converted from
    /// `icc` to opaque sRGB RGBA by lcms.
    public static func cmykToSRGB(_ cmyk: [UInt8], from icc: Data, inverted: Bool) -> [UInt8] {
        let source = icc.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }!
        let destination = cmsCreate_sRGBProfile()!
        defer {
            cmsCloseProfile(source)
            cmsCloseProfile(destination)
        }
        let cmyk8 = cmsUInt32Number(UInt32(PT_CMYK) << 16 | 4 << 3 | 1 | (inverted ? 1 << 13 : 0))
        let rgb8 = cmsUInt32Number(COLORSPACE_SH_RGB | 3 << 3 | 1)
        let transform = cmsCreateTransform(source, cmyk8, destination, rgb8, cmsUInt32Number(INTENT_PERCEPTUAL), 0)!
        defer { cmsDeleteTransform(transform) }
        var rgb = [UInt8](repeating: 0, count: cmyk.count / 4 * 3)
        cmsDoTransform(transform, cmyk, &rgb, cmsUInt32Number(cmyk.count / 4))
        var rgba: [UInt8] = []
        rgba.reserveCapacity(cmyk.count)
        for index in stride(from: 0, to: rgb.count, by: 3) {
            rgba += [rgb[index], rgb[index + 1], rgb[index + 2], 255]
        }
        return rgba
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

/// What a colour test of an encoder and its decoder needs: an image of ``ColorReference/gamutChart(width:height:)``
/// in Display P3, by ICC profile or by code points, written losslessly and read back.
public enum ColorRoundTrip {
    /// The chart as an image whose samples are Display P3, described by `profile`.
    public static func chart(described profile: ColorProfile) throws -> Image {
        var image = Image(pixels: try PixelBuffer(width: 64, height: 48, rgba: ColorReference.gamutChart()), hasAlpha: false)
        image.colorProfile = profile
        return image
    }

    /// ΔE2000 between a default (sRGB) decode of `encoded` and lcms's conversion of the chart from Display P3.
    public static func errorAgainstLittleCMS(_ encoded: Data, coder: any ImageCoder) throws -> (mean: Double, p95: Double) {
        let decoded = try ColorConversionProbe.decodeToSRGB(encoded, coder: coder)
        let reference = ColorReference.toSRGB(ColorReference.gamutChart(), from: ColorReference.displayP3)
        return ColorReference.deltaE(decoded, reference)
    }
}

/// Decodes through a registry holding just one coder, so the library's colour conversion applies as it does
/// for the shared registry.
enum ColorConversionProbe {
    static func decodeToSRGB(_ data: Data, coder: any ImageCoder) throws -> [UInt8] {
        try ImageCoders(coders: [coder]).decode(data).pixels.bytes
    }
}
