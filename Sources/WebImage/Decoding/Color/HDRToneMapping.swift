import Foundation

/// How HDR samples (PQ or HLG transfer) become SDR: the operator is baked into the tone curve of the profile
/// their code points stand for, so that the same colour path converts them as any other profile.
///
/// The operator, per channel on display light:
/// - light is scaled so that HDR reference white (203 cd/m², BT.2408) would be 80% of SDR white's;
/// - up to 60% of SDR white, it passes unchanged;
/// - above that an extended Reinhard shoulder, continuous in value and slope, reaches SDR white exactly at the
///   format's peak (10 000 cd/m² for PQ, the 1 000 cd/m² display HLG is rendered for), so highlights keep their
///   gradation instead of clipping. Reference white itself lands at about 73%.
/// HLG is first turned into display light for that 1 000 cd/m² display (its OOTF, gamma 1.2 per channel).
enum HDRToneMapping {
    static let referenceWhite = 203.0
    /// Where HDR reference white lands, as a fraction of SDR white's light.
    static let referenceWhiteLevel = 0.8
    /// Up to this fraction of SDR white's light nothing changes.
    static let knee = 0.6
    static let tableSize = 4096

    /// SDR display light (0…1) for `nits` of HDR display light, on a source whose brightest is `peak` cd/m².
    static func map(nits: Double, peak: Double) -> Double {
        let level = max(0, nits) / referenceWhite * referenceWhiteLevel
        guard level > knee else { return level }
        let top = peak / referenceWhite * referenceWhiteLevel
        guard top > knee else { return 1 }
        let t = (level - knee) / (1 - knee), w = (top - knee) / (1 - knee)
        let shoulder = t * (1 + t / (w * w)) / (1 + t)
        return min(1, knee + (1 - knee) * shoulder)
    }

    /// SMPTE ST 2084: signal (0…1) to absolute luminance in cd/m².
    static func pqToNits(_ signal: Double) -> Double {
        let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
        let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
        let power = pow(max(signal, 0), 1 / m2)
        return 10_000 * pow(max(power - c1, 0) / (c2 - c3 * power), 1 / m1)
    }

    /// BT.2100 HLG: signal (0…1) to display luminance in cd/m² on a 1 000 cd/m² display.
    static func hlgToNits(_ signal: Double) -> Double {
        let a = 0.17883277, b = 0.28466892, c = 0.55991073
        let scene = signal <= 0.5 ? signal * signal / 3 : (exp((signal - c) / a) + b) / 12
        return 1_000 * pow(scene, 1.2)
    }

    static func pqTable() -> [Float] { table(peak: 10_000, pqToNits) }
    static func hlgTable() -> [Float] { table(peak: 1_000, hlgToNits) }

    private static func table(peak: Double, _ nits: (Double) -> Double) -> [Float] {
        (0..<tableSize).map { index in
            Float(map(nits: nits(Double(index) / Double(tableSize - 1)), peak: peak))
        }
    }
}
