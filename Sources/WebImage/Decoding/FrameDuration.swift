/// How long animation frames are shown. One rule for every animated format, so GIF, WebP and APNG play alike.
package enum FrameDuration {
    /// Delays shorter than this are not honoured as written.
    package static let shortestPlayable = 0.011
    /// What a too-short delay plays as.
    package static let substitute = 0.1

    /// The display time for a stored delay of `seconds`: delays under 0.011 s play as 0.1 s, as browsers and
    /// SDWebImage do, because files that say 0 or 0.01 s mean "the default speed", not "as fast as possible".
    package static func playable(seconds: Double) -> Double {
        seconds < shortestPlayable ? substitute : seconds
    }
}
