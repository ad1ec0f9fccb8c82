/// How long animation frames are shown. One rule for every animated format, so GIF, WebP and APNG play alike.
public enum FrameDuration {
    /// Delays shorter than this are not honoured as written.
    public static let shortestPlayable = 0.011
    /// What a too-short delay plays as.
    public static let substitute = 0.1

    /// The display time for a stored delay of `seconds`: delays under 0.011 s play as 0.1 s, as browsers and
    /// SDWebImage do, because files that say 0 or 0.01 s mean "the default speed", not "as fast as possible".
    public static func playable(seconds: Double) -> Double {
        seconds < shortestPlayable ? substitute : seconds
    }
}
