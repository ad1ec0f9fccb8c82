import WebImageCore

/// What an `/info` URL asks to know about its source (imgproxy Pro's info options). The description options that
/// read only the file's header (size, format, dimensions, metadata) are on by default, as in imgproxy; the ones
/// that need the pixels are off until asked for.
public struct InfoOptions: Sendable, Hashable {
    /// `size`: the source's bytes. Default on.
    public var size = true
    /// `format`: its format and MIME type. Default on.
    public var format = true
    /// `dimensions`: width and height after orientation, and the EXIF orientation. Default on.
    public var dimensions = true
    /// `exif`: the EXIF tags. Default on.
    public var exif = true
    /// With ``exif``: tags by their canonical names (`DateTimeOriginal`) rather than their titles.
    public var exifCanonicalNames = false
    /// `iptc`: the IPTC-IIM records and Photoshop's resolution. Default on.
    public var iptc = true
    /// `xmp`: the XMP properties by namespace. Default on.
    public var xmp = true
    /// `colorspace`: the interpretation of the samples (`srgb`, `b-w`, `cmyk`, …).
    public var colorspace = false
    /// `bands`: how many channels the samples have.
    public var bands = false
    /// `sample_format`: the type of one sample (`uchar`, `ushort`).
    public var sampleFormat = false
    /// `pages_number`: pages or animation frames.
    public var pagesNumber = false
    /// `alpha`: whether the image has an alpha channel.
    public var alpha = false
    /// With ``alpha``: whether any pixel is not fully opaque.
    public var checksTransparency = false
    /// `crop`: the relative area a crop of this size and gravity would take; `nil` asks for none.
    public var crop: ProcessingOptions.Crop?
    /// `palette`: at most this many colours (2–256); 0 asks for none.
    public var paletteColors = 0
    /// `average`: the average colour.
    public var average = false
    /// With ``average``: fully transparent pixels left out. Default on.
    public var averageIgnoresTransparent = true
    /// `dominant_colors`: the six Palette roles.
    public var dominantColors = false
    /// With ``dominantColors``: roles no colour fits are made from the ones found.
    public var dominantColorsBuildMissing = false
    /// `blurhash`: its components across and down (1–9 each); `nil` asks for none.
    public var blurHash: (x: Int, y: Int)?
    /// `thumb_hash`.
    public var thumbHash = false
    /// `perceptual_hash`: a 64-bit DCT hash.
    public var perceptualHash = false
    /// `calc_hashsums`: checksums of the source's bytes, in the order asked.
    package var hashSums: [HashSum] = []
    /// `hashsum`: the source's bytes must have this checksum (hex), or the answer is a 422.
    package var expectedHashSum: (sum: HashSum, hex: String)?
    /// `page`: the page or frame the pixel options describe (0-based).
    public var page = 0
    /// Changes the URL and nothing else.
    public var cacheBuster = ""
    /// A Unix time after which the URL is refused (404); `nil` never expires.
    public var expires: Int?
    /// The presets applied, in order.
    public var presets: [String] = []
    /// The URL's own limits on the source (`max_src_resolution`, `max_src_file_size`).
    public var limits = ProcessingOptions.SecurityLimits()

    /// imgproxy's defaults: size, format, dimensions and metadata.
    public init() {}

    /// Whether an answer needs any pixel of the source (decoded, at the smallest scale that serves it).
    public var needsPixels: Bool {
        colorspace || bands || sampleFormat || (alpha && checksTransparency) || paletteColors > 0 || average
            || dominantColors || blurHash != nil || thumbHash || perceptualHash || crop.map(Self.dependsOnPixels) == true
    }

    /// Whether the answer can be made from the file's header alone, so its download may stop there: nothing
    /// needs pixels, checksums, every frame, or the whole file's bytes.
    public var readsHeaderOnly: Bool {
        !needsPixels && hashSums.isEmpty && expectedHashSum == nil && !pagesNumber && !alpha
            && limits.maximumSourceBytes == nil
    }

    /// Whether the answer needs no more of the file than its header and a reduced decode of its first frame, so
    /// its download may stop where that decode is served (a progressive JPEG's first scans, an animated GIF's or
    /// WebP's first frame): no checksum, no page count or other page, no transparency check of every pixel, no
    /// limit on the file's bytes.
    public var readsReducedDecodeOnly: Bool {
        hashSums.isEmpty && expectedHashSum == nil && !pagesNumber && page == 0 && !(alpha && checksTransparency)
            && limits.maximumSourceBytes == nil
    }

    /// A smart crop looks at the pixels; every other gravity is geometry.
    private static func dependsOnPixels(_ crop: ProcessingOptions.Crop) -> Bool {
        crop.gravity?.anchor == .smart
    }

    public static func == (lhs: InfoOptions, rhs: InfoOptions) -> Bool { lhs.cacheKey == rhs.cacheKey }

    public func hash(into hasher: inout Hasher) { hasher.combine(cacheKey) }

    /// Every option that changes the answer, as text for the answer's cache key.
    public var cacheKey: String {
        func flag(_ value: Bool) -> String { value ? "1" : "0" }
        var key = "info/s:\(flag(size))/f:\(flag(format))/d:\(flag(dimensions))"
        key += "/exif:\(flag(exif)):\(flag(exifCanonicalNames))/iptc:\(flag(iptc))/xmp:\(flag(xmp))"
        key += "/cs:\(flag(colorspace))/b:\(flag(bands))/sf:\(flag(sampleFormat))/pn:\(flag(pagesNumber))"
        key += "/a:\(flag(alpha)):\(flag(checksTransparency))"
        if let crop {
            let gravity = crop.gravity.map { "\($0.anchor.rawValue):\($0.x):\($0.y)" } ?? "-"
            key += "/c:\(crop.width):\(crop.height):\(gravity)"
        }
        key += "/p:\(paletteColors)/avg:\(flag(average)):\(flag(averageIgnoresTransparent))"
        key += "/dc:\(flag(dominantColors)):\(flag(dominantColorsBuildMissing))"
        key += "/bh:\(blurHash.map { "\($0.x):\($0.y)" } ?? "-")/th:\(flag(thumbHash))/ph:\(flag(perceptualHash))"
        key += "/chs:" + hashSums.map(\.rawValue).joined(separator: ":")
        if let expectedHashSum { key += "/hs:\(expectedHashSum.sum.rawValue):\(expectedHashSum.hex)" }
        key += "/pg:\(page)"
        if limits != ProcessingOptions.SecurityLimits() { key += "/lim:\(limits.cacheKey)" }
        return key + "/cb:" + cacheBuster
    }
}
