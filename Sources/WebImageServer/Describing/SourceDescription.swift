import WebImage
import Foundation

/// What an `/info` request is answered with: the fields imgproxy Pro names, in a fixed order, made from the
/// source's bytes. The header's fields (size, format, dimensions, metadata) read no pixel; the others share one
/// decode that fits the image in ``WebImage/DecodeOptions/describingSide`` pixels (none of them holds more detail than that, and a 12 MP JPEG
/// decodes at an eighth of its size for it), except a transparency check, which looks at every pixel.
struct SourceDescription {
    let options: InfoOptions
    let coders: ImageCoders
    /// The server's pixel limits, which the URL's `max_src_resolution` replaces.
    let limits: DecodeLimits

    /// The answer's fields for `source`, whose whole file has `totalBytes` bytes (`source` may be its header
    /// alone, when ``InfoOptions/readsHeaderOnly``).
    /// - Throws: ``ProxyError`` 422 for a source over the URL's limits or whose checksum is not the expected one;
    ///   ``ImageError`` for one that cannot be read.
    func fields(of source: Data, totalBytes: Int, sourceName: String) throws -> [(String, JSONValue)] {
        if let expected = options.expectedHashSum, expected.sum.hex(of: source) != expected.hex {
            throw ProxyError(status: 422, "the source's \(expected.sum.rawValue) is not the one the URL expects")
        }
        let properties = try coders.properties(of: source)
        try checkLimits(properties)
        var fields: [(String, JSONValue)] = []
        if options.size { fields.append(("size", .int(totalBytes))) }
        if options.format {
            let name = ProcessingOptions.sourceFormatName(of: properties.format) ?? properties.format.rawValue
            fields.append(("format", .string(name)))
            fields.append(("mime_type", .string(properties.format == .heic || properties.format == .heif
                                                ? "image/heif" : properties.format.mimeType)))
        }
        if options.dimensions {
            fields += [("width", .int(properties.size.width)), ("height", .int(properties.size.height)),
                       ("orientation", .int(properties.orientation.rawValue))]
        }
        fields += metadataFields(of: source)
        fields += try pixelFields(of: source, properties: properties, sourceName: sourceName)
        if !options.hashSums.isEmpty {
            fields.append(("hashsums", .object(options.hashSums.map { ($0.rawValue, .string($0.hex(of: source))) })))
        }
        return fields
    }

    /// `exif`, `iptc` and `photoshop`, `xmp`: each only when asked for and the file has it.
    private func metadataFields(of source: Data) -> [(String, JSONValue)] {
        guard options.exif || options.iptc || options.xmp, let metadata = ImageMetadata.read(from: source) else {
            return []
        }
        var fields: [(String, JSONValue)] = []
        if options.exif, let exif = metadata.exif {
            let tags = EXIFDescription.fields(exif, canonicalNames: options.exifCanonicalNames)
            if !tags.isEmpty { fields.append(("exif", .object(tags))) }
        }
        if options.iptc, let block = metadata.iptc {
            let records = IPTCDescription.fields(block)
            if !records.isEmpty { fields.append(("iptc", .object(records))) }
            let photoshop = IPTCDescription.photoshopFields(block)
            if !photoshop.isEmpty { fields.append(("photoshop", .object(photoshop))) }
        }
        if options.xmp, let xmp = metadata.xmp {
            let namespaces = XMPDescription.fields(xmp)
            if !namespaces.isEmpty { fields.append(("xmp", .object(namespaces))) }
        }
        return fields
    }

    /// The options that need the decoded image, in imgproxy's order.
    private func pixelFields(of source: Data, properties: ImageProperties, sourceName: String) throws
        -> [(String, JSONValue)]
    {
        var fields: [(String, JSONValue)] = []
        let page = min(options.page, max(0, properties.frameCount - 1))
        var small: Image?
        func decoded() throws -> Image {
            if let small { return small }
            let image = try coders.decode(source, options: reducedDecode(page: page, sourceName: sourceName))
            small = image
            return image
        }
        let gray = properties.colorSpace == .gray, cmyk = properties.colorSpace == .cmyk
        if options.colorspace || options.sampleFormat {
            let deep = try decoded().frames[0].deepPixels != nil
            if options.colorspace {
                let space = cmyk ? "cmyk" : gray ? (deep ? "grey16" : "b-w") : (deep ? "rgb16" : "srgb")
                fields.append(("colorspace", .string(space)))
            }
            if options.bands { fields.append(("bands", .int(bandCount(properties)))) }
            if options.sampleFormat { fields.append(("sample_format", .string(deep ? "ushort" : "uchar"))) }
        } else if options.bands {
            fields.append(("bands", .int(bandCount(properties))))
        }
        if options.pagesNumber { fields.append(("pages_number", .int(properties.frameCount))) }
        if options.alpha {
            fields.append(("alpha", .bool(properties.hasAlpha)))
            if options.checksTransparency {
                fields.append(("transparent", .bool(try properties.hasAlpha && isTransparent(source, page: page,
                                                                                              sourceName: sourceName))))
            }
        }
        if let crop = options.crop {
            fields.append(("crop", try cropField(crop, size: properties.size, pixels: { try decoded().pixels })))
        }
        if options.paletteColors > 0 {
            let colours = try decoded().pixels.palette(maxColors: options.paletteColors)
            fields.append(("palette", .array(colours.map(Self.color))))
        }
        if options.average {
            let average = try decoded().pixels.averageColor(ignoringTransparent: options.averageIgnoresTransparent)
            fields.append(("average", average.map(Self.color) ?? .null))
        }
        if options.dominantColors {
            let found = try DominantColors(of: decoded().pixels, buildingMissing: options.dominantColorsBuildMissing)
            let roles: [(String, RGBA?)] = [
                ("vibrant", found.vibrant), ("light_vibrant", found.lightVibrant), ("dark_vibrant", found.darkVibrant),
                ("muted", found.muted), ("light_muted", found.lightMuted), ("dark_muted", found.darkMuted),
            ]
            // A role no colour fits is left out, as imgproxy leaves it out.
            fields.append(("dominant_colors", .object(roles.compactMap { role, colour in
                colour.map { (role, Self.color($0, alpha: false)) }
            })))
        }
        if let components = options.blurHash {
            let hash = try BlurHash.encode(decoded().pixels, componentsX: components.x, componentsY: components.y)
            fields.append(("blurhash", .string(hash)))
        }
        if options.thumbHash {
            let hash = try ThumbHash.encode(decoded().pixels)
            fields.append(("thumb_hash", .string(hash.map { String(format: "%02X", $0) }.joined())))
        }
        if options.perceptualHash {
            fields.append(("perceptual_hash", .string(PerceptualHash.hexString(try PerceptualHash.hash(decoded().pixels)))))
        }
        return fields
    }

    /// The pixel options' decode: fitted in ``WebImage/DecodeOptions/describingSide`` pixels, of `page`. Also the rule a source's download
    /// may stop early by (a progressive JPEG's first scans, an animation's first frame), so both are made here.
    func reducedDecode(page: Int, sourceName: String) -> DecodeOptions {
        var decode = DecodeOptions.describing(frame: page, fileNameHint: sourceName)
        decode.limits = limits
        decode.keepsHighBitDepth = options.sampleFormat || options.colorspace
        return decode
    }

    /// Channels as stored: one for gray, four inks for CMYK, three otherwise, and one more for alpha.
    private func bandCount(_ properties: ImageProperties) -> Int {
        (properties.colorSpace == .gray ? 1 : properties.colorSpace == .cmyk ? 4 : 3) + (properties.hasAlpha ? 1 : 0)
    }

    /// Whether any pixel of the page is not fully opaque: judged on the whole decode, as a reduced one averages a
    /// lone transparent pixel away.
    private func isTransparent(_ source: Data, page: Int, sourceName: String) throws -> Bool {
        var decode = DecodeOptions(firstFrameOnly: page == 0, fileNameHint: sourceName)
        if page > 0 { decode.frameIndex = page }
        decode.limits = limits
        return try coders.decode(source, options: decode).pixels.containsTransparency
    }

    /// Where a crop of this size and gravity would sit, as fractions of the image (after orientation). A smart
    /// crop is found on the reduced decode, scaled to it.
    private func cropField(_ crop: ProcessingOptions.Crop, size: PixelSize, pixels: () throws -> PixelBuffer) throws
        -> JSONValue
    {
        let cropSize = PixelSize(width: ResizePlan.cropSide(crop.width, of: size.width),
                                 height: ResizePlan.cropSide(crop.height, of: size.height))
        let gravity = crop.gravity ?? .center
        let rect: (x: Double, y: Double)
        if gravity.anchor == .smart {
            let reduced = try pixels()
            let scaleX = Double(reduced.width) / Double(size.width), scaleY = Double(reduced.height) / Double(size.height)
            let scaled = PixelSize(width: max(1, min(reduced.width, Int((Double(cropSize.width) * scaleX).rounded()))),
                                   height: max(1, min(reduced.height, Int((Double(cropSize.height) * scaleY).rounded()))))
            let found = SmartCrop.rect(of: scaled, in: reduced)
            rect = (Double(found.x) / scaleX, Double(found.y) / scaleY)
        } else {
            let placed = GravityPlacement.rect(of: cropSize, in: size, gravity: gravity)
            rect = (Double(placed.x), Double(placed.y))
        }
        return .object([
            ("left", .double(rect.x / Double(size.width))), ("top", .double(rect.y / Double(size.height))),
            ("width", .double(Double(cropSize.width) / Double(size.width))),
            ("height", .double(Double(cropSize.height) / Double(size.height))),
        ])
    }

    /// The URL's own pixel limit (imgproxy's `max_src_resolution`, all frames together).
    private func checkLimits(_ properties: ImageProperties) throws(ProxyError) {
        guard let limit = options.limits.maximumSourcePixels else { return }
        let pixels = properties.size.area * max(1, properties.frameCount)
        guard pixels <= limit else {
            throw ProxyError(status: 422, "the source has \(pixels) pixels, over this URL's limit of \(limit)")
        }
    }

    /// A colour as imgproxy writes one: `{"R":…,"G":…,"B":…,"A":…}` (without `A` for the dominant colours).
    static func color(_ colour: RGBA) -> JSONValue { color(colour, alpha: true) }

    static func color(_ colour: RGBA, alpha: Bool) -> JSONValue {
        var fields: [(String, JSONValue)] = [("R", .int(Int(colour.r))), ("G", .int(Int(colour.g))),
                                             ("B", .int(Int(colour.b)))]
        if alpha { fields.append(("A", .int(Int(colour.a)))) }
        return .object(fields)
    }
}
