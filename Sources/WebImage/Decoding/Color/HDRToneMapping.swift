import Foundation

/// How HDR samples (PQ or HLG transfer) become SDR: the operator is baked into the tone curve of the profile
/// their code points stand for, so that the same colour path converts them as any other profile (BT.2020
/// primaries to the output's, by Little CMS).
///
/// Per channel on display light, as displays render HDR on a dimmer screen:
/// - the ITU-R BT.2390 EETF compresses the content's range, from black to its peak, into the range of a display
///   whose peak is HDR reference white (203 cd/m², BT.2408). The curve works on PQ signal values: below its knee
///   (the "KS" point, at one and a half times the target's relative peak less a half) light passes unchanged,
///   above it a Hermite spline bends the rest onto the target's peak, continuous in value and slope;
/// - that target range is SDR's: reference white becomes SDR white, so a 1 000 cd/m² source keeps its darks and
///   mid-tones exactly and rolls its highlights off toward white, reference white itself landing near 80%.
/// The content's peak is what its file says (``ColorCodePoints/contentPeak``), else 1 000 cd/m². HLG is first
/// turned into display light for the 1 000 cd/m² display it is graded for (its OOTF, gamma 1.2 per channel).
enum HDRToneMapping {
    /// HDR reference white (BT.2408), which becomes SDR white.
    static let referenceWhite = 203.0
    /// The peak assumed for content whose file does not tell it, and the display HLG is rendered for.
    static let defaultPeak = 1_000.0
    static let tableSize = 4096

    /// SDR display light (0…1) for `nits` of HDR display light, on content whose brightest is `peak` cd/m².
    static func map(nits: Double, peak: Double) -> Double {
        // Content no brighter than reference white needs no compression: it is shown as it is.
        let peak = min(max(peak, referenceWhite), 10_000)
        let sourceTop = nitsToPQ(peak)
        let signal = nitsToPQ(min(max(nits, 0), peak)) / sourceTop
        let targetTop = nitsToPQ(referenceWhite) / sourceTop
        let knee = 1.5 * targetTop - 0.5
        var mapped = signal
        if signal > knee {
            let t = (signal - knee) / (1 - knee), t2 = t * t, t3 = t2 * t
            mapped = (2 * t3 - 3 * t2 + 1) * knee + (t3 - 2 * t2 + t) * (1 - knee) + (-2 * t3 + 3 * t2) * targetTop
        }
        return min(1, pqToNits(mapped * sourceTop) / referenceWhite)
    }

    /// SMPTE ST 2084: signal (0…1) to absolute luminance in cd/m².
    static func pqToNits(_ signal: Double) -> Double {
        let power = pow(max(signal, 0), 1 / PQ.m2)
        return 10_000 * pow(max(power - PQ.c1, 0) / (PQ.c2 - PQ.c3 * power), 1 / PQ.m1)
    }

    /// SMPTE ST 2084's inverse: absolute luminance in cd/m² to signal (0…1).
    static func nitsToPQ(_ nits: Double) -> Double {
        let power = pow(min(max(nits, 0), 10_000) / 10_000, PQ.m1)
        return pow((PQ.c1 + PQ.c2 * power) / (1 + PQ.c3 * power), PQ.m2)
    }

    /// BT.2100 HLG: signal (0…1) to display luminance in cd/m² on a 1 000 cd/m² display.
    static func hlgToNits(_ signal: Double) -> Double {
        let a = 0.17883277, b = 0.28466892, c = 0.55991073
        let scene = signal <= 0.5 ? signal * signal / 3 : (exp((signal - c) / a) + b) / 12
        return defaultPeak * pow(scene, 1.2)
    }

    /// The tone curve of PQ samples whose content peaks at `contentPeak` cd/m² (1 000 when unknown).
    static func pqTable(contentPeak: Double?) -> [Float] {
        let peak = contentPeak.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? defaultPeak
        return table { map(nits: pqToNits($0), peak: peak) }
    }

    static func hlgTable() -> [Float] { table { map(nits: hlgToNits($0), peak: defaultPeak) } }

    private static func table(_ curve: (Double) -> Double) -> [Float] {
        (0..<tableSize).map { Float(curve(Double($0) / Double(tableSize - 1))) }
    }

    /// ST 2084's constants.
    private enum PQ {
        static let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
        static let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
    }
}
