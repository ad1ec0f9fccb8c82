import Foundation

/// Builds the ICC profile a colour description by code points (H.273) or by PNG chunks stands for.
enum ColorCodePointProfiles {
    struct Built {
        let space: ColorSpace
        let name: String
        let profile: LittleCMSProfile
    }

    static func profile(for points: ColorCodePoints) -> Built? {
        let white: ChromaticityXY
        let primaries: [ChromaticityXY]
        switch points.primaries {
        case 1, 2: (white, primaries) = (ColorSpaceRecognizer.d65, ColorSpaceRecognizer.bt709Primaries)
        case 9: (white, primaries) = (ColorSpaceRecognizer.d65, ColorSpaceRecognizer.bt2020Primaries)
        case 12: (white, primaries) = (ColorSpaceRecognizer.d65, ColorSpaceRecognizer.p3Primaries)
        case 11: (white, primaries) = (ChromaticityXY(x: 0.314, y: 0.351), ColorSpaceRecognizer.p3Primaries)
        default: return nil
        }
        let curve: ToneCurveShape
        var hdrSpace: ColorSpace?
        switch points.transfer {
        // Unspecified, and BT.709's camera curves (1, 6, 14, 15), are shown as sRGB, as browsers show images
        // so labelled: the many files written as BT.709 then need no conversion.
        case 1, 2, 6, 13, 14, 15: curve = .sRGB
        case 4: curve = .gamma(2.2)
        case 5: curve = .gamma(2.8)
        case 8: curve = .gamma(1)
        case 16: (curve, hdrSpace) = (.table(HDRToneMapping.pqTable(contentPeak: points.contentPeak)), .bt2100PQ)
        case 18: (curve, hdrSpace) = (.table(HDRToneMapping.hlgTable()), .bt2100HLG)
        default: return nil
        }
        let name = "\(points)"
        guard let profile = LittleCMSProfile.rgb(white: white, red: primaries[0], green: primaries[1],
                                                 blue: primaries[2], curve: curve, description: name)
        else { return nil }
        let space = hdrSpace ?? ColorSpaceRecognizer.space(of: profile)
        return Built(space: space, name: name, profile: profile)
    }

    /// The profile PNG's `gAMA` and `cHRM` chunks describe (either may be missing: sRGB's primaries, or the sRGB
    /// curve, stand in). `nil` when they describe sRGB closely enough that nothing would change, or are invalid.
    static func pngProfile(gamma: Double?, white: ChromaticityXY?, primaries: [ChromaticityXY]?) -> ColorProfile? {
        let curve: ToneCurveShape
        if let gamma {
            guard gamma > 0.01, gamma < 10 else { return nil }
            // Gamma 1/2.2 with sRGB's chromaticities (or none) is how most tools label sRGB output; libpng's
            // sRGB check and browsers read it as sRGB.
            let sRGBChromaticities = primaries.map { primaries in
                zip([white ?? ColorSpaceRecognizer.d65] + primaries,
                    [ColorSpaceRecognizer.d65] + ColorSpaceRecognizer.bt709Primaries)
                    .allSatisfy { abs($0.x - $1.x) <= 0.001 && abs($0.y - $1.y) <= 0.001 }
            } ?? true
            if sRGBChromaticities, abs(gamma - 1 / 2.2) < 0.0005 { return nil }
            curve = .gamma(1 / gamma)
        } else {
            curve = .sRGB
        }
        let white = white ?? ColorSpaceRecognizer.d65
        let primaries = primaries ?? ColorSpaceRecognizer.bt709Primaries
        let valid = ([white] + primaries).allSatisfy { $0.x > 0 && $0.y > 0 && $0.x + $0.y <= 1.0001 }
        guard valid, let profile = LittleCMSProfile.rgb(white: white, red: primaries[0], green: primaries[1],
                                                        blue: primaries[2], curve: curve, description: "PNG gAMA/cHRM"),
              let icc = profile.serialized()
        else { return nil }
        let described = ColorProfile(profile: profile, iccData: icc, codePoints: nil)
        return described.unlessSRGB
    }
}
