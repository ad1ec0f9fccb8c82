import Foundation

/// The registry of coders. The coder added last is asked first, so a plugin can take over a format from a
/// built-in coder. ``shared`` starts with the built-in JPEG, PNG, GIF, WebP, BMP and ICO coders; the heavy
/// formats (AVIF, HEIF, JPEG XL, SVG, PDF, TIFF) are products of their own whose coders you add.
public final class ImageCoders: Sendable {
    /// The registry used when no other is given.
    public static let shared = ImageCoders(coders: ImageCoders.builtIn)

    /// The built-in coders, in registration order.
    public static var builtIn: [any ImageCoder] {
        [JPEGCoder(), PNGCoder(), GIFCoder(), WebPCoder(), BMPCoder(), ICOCoder()]
    }

    private let registered: LastAddedFirstRegistry<any ImageCoder>

    /// Creates a registry holding `coders`, asked last to first.
    public init(coders: [any ImageCoder] = []) {
        registered = LastAddedFirstRegistry(coders)
    }

    /// The registered coders in the order they are asked (last added first).
    public var coders: [any ImageCoder] { registered.inAskingOrder }

    /// Registers `coder` ahead of every coder already here.
    public func add(_ coder: any ImageCoder) {
        registered.add(coder)
    }

    /// Removes every coder of the same type as `coder`.
    public func remove(_ coder: any ImageCoder) {
        registered.removeAll(ofTypeOf: coder)
    }

    /// Decodes `data` with the first coder that accepts it, then converts its colour as
    /// ``DecodeOptions/colorHandling`` asks (coders tag the image with the file's profile; this is the one place
    /// that applies it) and, with ``DecodeOptions/readsMetadata``, attaches the file's metadata.
    ///
    /// It runs on the calling thread, for as long as the image takes (seconds for a large one): from `async` code,
    /// ``decode(_:options:on:priority:)-(Data,_,_,_)`` runs it on a ``CPUExecutor`` instead of a thread of Swift's
    /// shared pool.
    ///
    /// Throws `ImageError.Code.badImageData` for empty data or data no format matches, and
    /// `ImageError.Code.unsupportedFormat` for a recognised format no coder reads (HEIC, TIFF, SVG, …).
    public func decode(_ data: Data, options: DecodeOptions = DecodeOptions()) throws -> Image {
        // A fill box needs the source's size from its header: the planned decode reads it.
        if options.fillBox != nil { return try decode(data) { _ in options } }
        var image = try coder(for: data).decode(data, options: options)
        try finish(&image, decodedWith: options, from: data)
        return image
    }

    /// Reads `data`'s properties, asks `plan` for the options to decode with, and decodes as
    /// ``decode(_:options:)-(Data,_)`` does with them: how a server sizes a decode from its source's header. A coder
    /// that decodes in a helper process reads the properties there and sends them back before the pixels, in one
    /// exchange. What `plan` throws is thrown unchanged, before anything is decoded; otherwise this throws like
    /// ``decode(_:options:)-(Data,_)``.
    public func decode(_ data: Data, planning plan: (ImageProperties) throws -> DecodeOptions) throws -> Image {
        var planned = DecodeOptions(), box: PixelSize?
        var image = try coder(for: data).decode(data, planning: { properties in
            planned = try plan(properties)
            box = planned.fillBox
            guard let box else { return planned }
            // The header says the source's size: decode just large enough to cover the box, then cut its centre.
            let shown = planned.applyOrientation || !properties.orientation.swapsAxes
                ? properties.size : properties.size.transposed
            return planned.covering(box, displayedSize: shown)
        })
        try finish(&image, decodedWith: planned, from: data)
        if let box { image = try planned.cutToFill(image, box: box) }
        return image
    }

    /// The first coder that accepts `data`. Throws `ImageError.Code.badImageData` for empty data or data no
    /// format matches, `ImageError.Code.unsupportedFormat` for a recognised format no coder reads.
    private func coder(for data: Data) throws -> any ImageCoder {
        guard !data.isEmpty else { throw ImageError(.badImageData, "the data is empty") }
        if let coder = registered.first(where: { $0.canDecode(data) }) { return coder }
        let format = ImageFormat.detect(data)
        if format == .unknown {
            throw ImageError(.badImageData, "the data is not an image in any known format")
        }
        throw ImageError(.unsupportedFormat, "\(format.rawValue) images cannot be decoded")
    }

    /// What every decode ends with: the colour converted as `options` ask (coders tag the image with the file's
    /// profile; this is the one place that applies it) and, when asked, the file's metadata attached.
    private func finish(_ image: inout Image, decodedWith options: DecodeOptions, from data: Data) throws {
        try ColorConversion.apply(options.colorHandling, to: &image)
        // A coder that decodes elsewhere (a decode helper) brings the metadata it read there.
        if options.readsMetadata, image.metadata == nil, let metadata = ImageMetadata.read(from: data) {
            image.metadata = options.applyOrientation ? metadata.withOrientationUp() : metadata
        }
    }

    /// Reads what `data` says about itself from its headers alone (see ``ImageProperties``), with the first
    /// coder that accepts it. Throws like ``decode(_:options:)-(Data,_)``: `ImageError.Code.unsupportedFormat` for a
    /// recognised format no coder reads (`ImageFormat.detect(_:)` still names it).
    public func properties(of data: Data) throws -> ImageProperties {
        try coder(for: data).properties(of: data)
    }

    /// Every format some registered coder decodes.
    public var decodableFormats: Set<ImageFormat> {
        registered.reduce(into: Set()) { $0.formUnion($1.decodableFormats) }
    }

    /// Whether some registered coder writes `format`.
    public func canEncode(to format: ImageFormat) -> Bool {
        coders.contains { $0.canEncode(to: format) }
    }

    /// An HTTP `Accept` value that asks only for what the registered coders decode: the modern formats first
    /// (a server that negotiates picks the smallest it may send), then the classic ones. `*/*` stays last with
    /// a low weight, for servers that ignore the header or send a generic content type: the bytes are checked
    /// by their magic numbers either way.
    public var acceptHeader: String {
        let decodable = decodableFormats
        let preference: [ImageFormat] = [.jxl, .avif, .heic, .heif, .webp, .png, .jpeg, .gif, .svg, .tiff, .bmp, .ico, .pdf]
        var types = preference.filter(decodable.contains).map(\.mimeType)
        types += decodable.subtracting(preference).map(\.mimeType).sorted()
        return (types + ["*/*;q=0.8"]).joined(separator: ",")
    }

    /// Encodes `image` as `format` with the first coder that writes it, on the calling thread (from `async` code,
    /// ``encode(_:as:options:on:priority:)`` runs it on a ``CPUExecutor``).
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions = EncodeOptions()) throws -> Data {
        guard let coder = coders.first(where: { $0.canEncode(to: format) }) else {
            throw ImageError(.unsupportedFormat, "\(format.rawValue) images cannot be encoded")
        }
        return try coder.encode(image, as: format, options: options)
    }
}
