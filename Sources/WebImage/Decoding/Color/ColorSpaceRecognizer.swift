import CLCMS2

/// Names the space an ICC profile describes by measuring it: its colorants and tone curves against those of the
/// standard spaces built from their published primaries. A profile is only called sRGB when converting from it
/// would move no 8-bit sample, which is what lets sRGB-tagged files skip conversion bit for bit.
enum ColorSpaceRecognizer {
    private struct Reference {
        let space: ColorSpace
        let colorants: [SIMD3<Double>]
        let curve: ToneCurveShape
    }

    static let d65 = ChromaticityXY(x: 0.3127, y: 0.3290)
    static let bt709Primaries = [ChromaticityXY(x: 0.64, y: 0.33), ChromaticityXY(x: 0.30, y: 0.60),
                                 ChromaticityXY(x: 0.15, y: 0.06)]
    static let p3Primaries = [ChromaticityXY(x: 0.680, y: 0.320), ChromaticityXY(x: 0.265, y: 0.690),
                              ChromaticityXY(x: 0.150, y: 0.060)]
    static let adobeRGBPrimaries = [ChromaticityXY(x: 0.64, y: 0.33), ChromaticityXY(x: 0.21, y: 0.71),
                                    ChromaticityXY(x: 0.15, y: 0.06)]
    static let bt2020Primaries = [ChromaticityXY(x: 0.708, y: 0.292), ChromaticityXY(x: 0.170, y: 0.797),
                                  ChromaticityXY(x: 0.131, y: 0.046)]

    private static let references: [Reference] = {
        let table: [(ColorSpace, [ChromaticityXY], ToneCurveShape)] = [
            (.sRGB, bt709Primaries, .sRGB), (.displayP3, p3Primaries, .sRGB),
            (.adobeRGB, adobeRGBPrimaries, .gamma(563.0 / 256)), (.bt2020, bt2020Primaries, .sRGB),
        ]
        return table.compactMap { space, primaries, curve in
            guard let profile = LittleCMSProfile.rgb(white: d65, red: primaries[0], green: primaries[1],
                                                     blue: primaries[2], curve: curve, description: space.rawValue),
                  let colorants = profile.colorants else { return nil }
            return Reference(space: space, colorants: colorants, curve: curve)
        }
    }()

    /// Colorant components may differ by this much: profiles written by different tools round the Bradford
    /// adaptation differently (s15Fixed16 steps are 0.000015; real sRGB profiles differ by up to 0.002).
    private static let colorantTolerance = 0.0025
    /// Curves may differ by this much at any sampled point: under half an 8-bit step.
    private static let curveTolerance: Float = 0.5 / 255
    private static let curveSamples: [Float] = [0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9]

    static func space(of profile: LittleCMSProfile) -> ColorSpace {
        let signature = profile.colorSpace
        if signature == cmsSigCmykData { return .cmyk }
        if signature == cmsSigGrayData { return .gray }
        guard signature == cmsSigRgbData else { return .icc }
        guard profile.isMatrixShaper, let colorants = profile.colorants else { return .icc }
        for reference in references where matches(colorants, reference.colorants) {
            if reference.space == .bt2020 { return .bt2020 }  // its SDR curve varies between writers
            return curveMatches(profile, reference.curve) ? reference.space : .icc
        }
        return .icc
    }

    /// Whether a gray profile's curve is sRGB's, so its samples need no conversion.
    static func grayIsSRGB(_ profile: LittleCMSProfile) -> Bool {
        curveMatches(profile, .sRGB)
    }

    private static func matches(_ a: [SIMD3<Double>], _ b: [SIMD3<Double>]) -> Bool {
        zip(a, b).allSatisfy { pair in
            let difference = pair.0 - pair.1
            return max(abs(difference.x), abs(difference.y), abs(difference.z)) <= colorantTolerance
        }
    }

    private static func curveMatches(_ profile: LittleCMSProfile, _ shape: ToneCurveShape) -> Bool {
        guard let reference = shape.makeCurve() else { return false }
        defer { cmsFreeToneCurve(reference) }
        return curveSamples.allSatisfy { x in
            let expected = cmsEvalToneCurveFloat(reference, x)
            return profile.curveValues(at: x)?.allSatisfy { abs($0 - expected) <= curveTolerance } ?? false
        }
    }
}
