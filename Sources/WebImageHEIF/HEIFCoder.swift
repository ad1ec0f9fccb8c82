import CHeif
import Foundation
import WebImage

/// HEIC and HEIF through libheif (the `WebImageHEIF` product; register it with
/// `ImageCoders.shared.add(HEIFCoder())`). One coder reads both ``ImageFormat/heic`` (HEVC brands) and
/// ``ImageFormat/heif`` (`mif1`/`msf1` brands); the decoded image and its properties carry the detected one.
///
/// Decoding returns the primary image as RGBA8 with straight alpha; a 10 or 12-bit primary image whose colour is
/// converted (``DecodeOptions/colorHandling``) is converted from its own samples before they become 8 bits, and
/// with ``DecodeOptions/keepsHighBitDepth`` its samples are kept as ``ImageFrame/deepPixels``. libheif
/// applies the file's transformations (`irot`, `imir`, `clap`) itself, so the pixels are upright, ``Image/orientation``
/// is ``Orientation/up`` and the size is the transformed one; ``DecodeOptions/applyOrientation`` has nothing to turn.
/// When a thumbnail size or scale-down limit is asked, the smallest embedded thumbnail at least that large is decoded
/// instead of the primary image, then area-averaged to the exact size. ``DecodeOptions/prefersEmbeddedThumbnail``
/// decodes the first embedded thumbnail whatever its size (see ``embeddedThumbnail(of:options:)``). Limits are checked
/// against the item sizes in the header before anything is decoded (libheif keeps its own security limits too).
///
/// Image sequences (`.heics`): libheif 1.15 reads only still items, so a sequence file gives its still primary
/// image when it has one, and throws ``ImageError/Code/unsupportedFormat`` when it holds nothing but a `moov`
/// track. ``ImageProperties/frameCount`` is always 1.
///
/// Encoding writes ``ImageFormat/heic``: one still image through libheif's HEVC encoder (x265).
public struct HEIFCoder: ImageCoder {
    /// Creates the coder; it holds no state.
    public init() {}

    /// ``ImageFormat/heic`` and ``ImageFormat/heif``.
    public var decodableFormats: Set<ImageFormat> { [.heic, .heif] }

    /// Whether `data` starts with an ISO BMFF `ftyp` box naming a HEIC or HEIF brand.
    public func canDecode(_ data: Data) -> Bool { Self.format(of: data) != nil }

    /// `true` for ``ImageFormat/heic`` (libheif's HEVC encoder); HEIF of other codecs is not written.
    public func canEncode(to format: ImageFormat) -> Bool { format == .heic }

    /// Decodes the primary image (or an embedded thumbnail, see the type's description).
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let format = Self.format(of: data) ?? .heif
        if let index = options.frameIndex, index != 0 {
            throw ImageError(.invalidParameter, "HEIF: frame \(index) asked of a still image")
        }
        return try data.withUnsafeBytes { bytes in
            try HEIFFile.withFile(bytes) { file in
                // A thumbnail that cannot be read is no reason to fail: the primary image is still there (imgproxy
                // falls back to it too).
                if options.prefersEmbeddedThumbnail,
                   let thumbnail = try? Self.firstThumbnail(of: file, format: format, options: options) {
                    return thumbnail
                }
                let size = file.size
                try options.limits.check(size)
                let profile = HEIFColorProfile.profile(of: file.primary, contentPeak: file.contentPeak)
                if options.keepsHighBitDepth, HEIFImageDecoder.decodesDeep(file.primary) {
                    return try Self.decodeKeepingDepth(file, format: format, profile: profile, options: options)
                }
                var reduced = false
                var converted = false
                var conversion: DeepColorConversion?
                let pixels: PixelBuffer
                if let target = options.targetSize(forDisplayed: size) {
                    // A thumbnail is converted after its scale-down, from 8 bits: within rounding of converting
                    // first, at a fraction of the cost.
                    pixels = try Self.decodeReduced(file, to: target, limits: options.limits)
                    reduced = true
                } else {
                    conversion = DeepColorConversion(from: profile, for: options.colorHandling)
                    let decoded = try HEIFImageDecoder.decode(file.primary, limits: options.limits,
                                                              converting: conversion)
                    (pixels, converted) = (decoded.pixels, decoded.converted)
                    reduced = pixels.size != size
                }
                var flags: Image.Flags = file.hasAlpha ? .hasAlpha : []
                if reduced { flags.insert(.thumbnail) }
                var image = Image(frames: [ImageFrame(pixels: pixels)], loopCount: 1, format: format,
                                  scale: options.resolvedScale, orientation: .up, flags: flags)
                // A deep image converted from its own samples carries its new space; anything else the file's,
                // for the shared conversion.
                image.colorProfile = converted ? conversion?.resultProfile : profile
                return image
            }
        }
    }

    /// The primary image of more than 8 bits kept deep (``DecodeOptions/keepsHighBitDepth``), colour converted
    /// in 16 bits, reduced (thumbnails) in 16 bits too.
    private static func decodeKeepingDepth(_ file: HEIFFile, format: ImageFormat, profile: ColorProfile?,
                                           options: DecodeOptions) throws -> Image {
        let conversion = DeepColorConversion(from: profile, for: options.colorHandling, keepingDepth: true)
        let deep = try HEIFImageDecoder.decodeKeepingDepth(file.primary, limits: options.limits,
                                                           converting: conversion)
        // libheif has applied the image's transformations: the samples are upright.
        let finished = try options.finish(deep: deep, sourceSize: deep.size, orientation: .up)
        var flags: Image.Flags = file.hasAlpha ? .hasAlpha : []
        if finished.reduced { flags.insert(.thumbnail) }
        var image = Image(frames: [try ImageFrame(deep: finished.pixels)], loopCount: 1, format: format,
                          scale: options.resolvedScale, orientation: .up, flags: flags)
        image.colorProfile = conversion == nil ? profile : conversion?.resultProfile
        return image
    }

    /// Reads the primary image's transformed size and alpha from the item properties; decodes nothing.
    public func properties(of data: Data) throws -> ImageProperties {
        let format = Self.format(of: data) ?? .heif
        return try data.withUnsafeBytes { bytes in
            try HEIFFile.withFile(bytes) { file in
                let size = file.size
                guard size.width > 0, size.height > 0 else {
                    throw ImageError(.badImageData, "HEIF: the primary image declares an empty size")
                }
                var properties = ImageProperties(format: format, size: size, hasAlpha: file.hasAlpha)
                properties.describeColor(HEIFColorProfile.profile(of: file.primary, contentPeak: file.contentPeak))
                return properties
            }
        }
    }

    /// The first frame as HEIC; any other format throws ``ImageError/Code/unsupportedFormat``.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .heic else {
            throw ImageError(.unsupportedFormat, "the HEIF coder does not write \(format.rawValue)")
        }
        return try HEIFEncoder.encode(options.fittingMaxPixelSize(image.pixels), hasAlpha: image.hasAlpha,
                                      options: options)
    }

    /// A reduced decode: from the smallest embedded thumbnail that covers `target`, else from the primary image.
    private static func decodeReduced(_ file: HEIFFile, to target: PixelSize, limits: DecodeLimits) throws -> PixelBuffer {
        let thumbnails = file.thumbnails()
        defer { thumbnails.forEach { heif_image_handle_release($0.handle) } }
        let source = thumbnailIndex(sizes: thumbnails.map(\.size), covering: target).map { thumbnails[$0].handle }
        let pixels = try HEIFImageDecoder.decode(source ?? file.primary, limits: limits).pixels
        return pixels.size == target ? pixels : try pixels.resized(to: target, filter: .area)
    }

    /// The index of the smallest thumbnail at least `target` in both dimensions (so that it is only ever scaled
    /// down), or `nil` when none is large enough.
    static func thumbnailIndex(sizes: [PixelSize], covering target: PixelSize) -> Int? {
        sizes.indices
            .filter { sizes[$0].width >= target.width && sizes[$0].height >= target.height }
            .min { sizes[$0].area < sizes[$1].area }
    }

    /// ``ImageFormat/heic`` or ``ImageFormat/heif`` from the `ftyp` brands, else `nil`.
    static func format(of data: Data) -> ImageFormat? {
        let format = ImageFormat.detect(data)
        return format == .heic || format == .heif ? format : nil
    }
}
