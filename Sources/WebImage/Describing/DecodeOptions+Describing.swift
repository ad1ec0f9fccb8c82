extension DecodeOptions {
    /// The side of the box a picture is decoded to fit for describing it (placeholder hashes, the perceptual
    /// hash, colours, palettes): none of them holds more detail, and a 12 MP JPEG decodes at an eighth of its
    /// size for it.
    public static let describingSide = 100

    /// The decode that describing a picture needs: fitted in ``describingSide`` pixels, `frame` only (the first
    /// by default), orientation applied, sRGB.
    public static func describing(frame: Int = 0, fileNameHint: String? = nil) -> DecodeOptions {
        var options = DecodeOptions(thumbnailPixelSize: PixelSize(width: describingSide, height: describingSide),
                                    firstFrameOnly: frame == 0, fileNameHint: fileNameHint)
        if frame > 0 { options.frameIndex = frame }
        return options
    }
}
