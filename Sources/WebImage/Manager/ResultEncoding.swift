/// The bytes a load delivers with its image (``ImageContext/resultEncoding``): the final image (thumbnailed and
/// transformed) encoded once, in this format with these options, handed out as ``ImageResult/data`` and kept as
/// the final key's disk entry. A server answering with those bytes then encodes each distinct result once: a
/// memory hit reads them back from that entry instead of encoding again (it encodes only if the entry is gone or
/// the disk is not used), and after a restart the disk hit is the same bytes as the first answer.
public struct ResultEncoding: Sendable, Hashable {
    /// The format written.
    public var format: ImageFormat
    /// How it is written.
    public var options: EncodeOptions

    /// Encoding as `format` with `options`.
    public init(format: ImageFormat, options: EncodeOptions = EncodeOptions()) {
        self.format = format
        self.options = options
    }

    /// The cache key suffix: every setting that changes the bytes, e.g. `Encoded(png,0.9,0,0,ffffffff,0,0)`.
    var keySuffix: String {
        let background = options.backgroundColor
        let color = [background.r, background.g, background.b, background.a]
            .map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        let flags = [options.lossless, options.firstFrameOnly].map { $0 ? "1" : "0" }.joined(separator: ",")
        return "Encoded(\(format.rawValue),\(options.clampedQuality),\(flags),\(color),\(options.maxPixelSize ?? 0),"
            + "\(options.progressive ? 1 : 0))"
    }
}
