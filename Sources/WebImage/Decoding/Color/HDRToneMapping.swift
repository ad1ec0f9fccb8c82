import Foundation

/// How HDR samples (PQ or HLG transfer) become SDR: the operator is baked into the tone curve of the profile
/// their code points stand for, so Little CMS converts them like any other profile.
///
/// The operator, per channel on display light: HDR reference white (203 cd/m², BT.2408) becomes SDR white's
/// level; values up to 75% of it pass unchanged; above that an exponential shoulder, continuous in value and
/// slope, approaches SDR white without reaching it, so highlights up to the source's peak keep their gradation
/// instead of clipping. HLG is first turned into display light for a 1 000 cd/m² display (its OOTF, gamma 1.2).
enum HDRToneMapping {
    static let referenceWhite = 203.0
    static let knee = 0.75
    static let tableSize = 4096

    /// SDR display light (0…1) for `relative` HDR display light, where 1 is HDR reference white.
    static func map(_ relative: Double) -> Double {
        guard relative > knee else { return max(0, relative) }
        return knee + (1 - knee) * (1 - exp(-(relative - knee) / (1 - knee)))
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

    static func pqTable() -> [Float] { table(pqToNits) }
    static func hlgTable() -> [Float] { table(hlgToNits) }

    private static func table(_ nits: (Double) -> Double) -> [Float] {
        (0..<tableSize).map { index in
            let signal = Double(index) / Double(tableSize - 1)
            return Float(min(1, map(nits(signal) / referenceWhite)))
        }
    }
}
