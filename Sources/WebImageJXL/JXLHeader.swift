import CJXL
import WebImage

/// What a JPEG XL codestream's basic info says, in the library's terms. Read with orientation kept
/// (see ``JXLDecoderHandle``), so the size is the stored one and the orientation the declared tag.
struct JXLHeader {
    /// Width and height as stored, before orientation.
    let storedSize: PixelSize
    /// The codestream's orientation (1–8, as EXIF); the JPEG XL spec makes it authoritative over any Exif box.
    let orientation: Orientation
    /// An alpha channel is declared (`alpha_bits > 0`): the flag every decode of the file carries.
    let hasAlpha: Bool
    /// The codestream has an animation header: frames have durations in ticks.
    let isAnimated: Bool
    /// Plays of an animation, 0 forever (as ``Image/loopCount``).
    let loopCount: Int
    /// The colour channels are one grey channel.
    let isGray: Bool
    /// Bits of each colour sample as coded (8 for most lossy files; 10, 12 or 16 for deep ones).
    let bitsPerSample: Int
    /// The brightest the image is meant to be shown, in cd/m² (`intensity_target`): a PQ image's content peak.
    let intensityTarget: Double?
    private let secondsPerTick: Double

    init(_ info: JxlBasicInfo) {
        storedSize = PixelSize(width: Int(info.xsize), height: Int(info.ysize))
        orientation = Orientation(rawValue: Int(info.orientation.rawValue)) ?? .up
        hasAlpha = info.alpha_bits > 0
        isAnimated = info.have_animation != 0
        loopCount = Int(info.animation.num_loops)
        isGray = info.num_color_channels == 1
        bitsPerSample = Int(info.bits_per_sample)
        intensityTarget = info.intensity_target > 0 ? Double(info.intensity_target) : nil
        let animation = info.animation
        // A tick is tps_denominator / tps_numerator seconds; a zero numerator (a broken header) reads as 0 s,
        // which plays at the default speed.
        secondsPerTick = animation.tps_numerator == 0
            ? 0 : Double(animation.tps_denominator) / Double(animation.tps_numerator)
    }

    /// The size a default decode produces: turned by the orientation.
    var displayedSize: PixelSize { orientation.displayedSize(of: storedSize) }

    /// A frame's display time in seconds from its duration in ticks: 0 for stills, else after
    /// ``FrameDuration/playable(seconds:)`` like every other animated format.
    func duration(ticks: UInt32) -> Double {
        isAnimated ? FrameDuration.playable(seconds: Double(ticks) * secondsPerTick) : 0
    }
}
