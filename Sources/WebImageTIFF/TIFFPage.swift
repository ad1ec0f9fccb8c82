import CTIFF
import WebImage

/// One page (image file directory) of a TIFF, read through libtiff's RGBA interface, which converts every common
/// photometric interpretation (bilevel and gray either way round, RGB, palette, CMYK, YCbCr, CIE Lab, LogLuv;
/// 1 to 16 bits; strips or tiles; contiguous or planar) to 8-bit RGBA, except 16-bit CMYK, which
/// ``TIFFCMYK16Reader`` reads instead, and pages whose colour is converted from their stored samples, which
/// ``TIFFColorManagedReader`` reads.
///
/// `TIFFRGBAImageBegin` only reads the directory's tags (and builds small colour tables), so the header facts
/// come from it without touching pixel data; ``decode(options:profile:)`` then checks the limits before the raster is
/// allocated.
struct TIFFPage {
    /// Width and height as stored (before the orientation tag is applied).
    let storedSize: PixelSize
    /// The orientation tag (274), which has the same meaning as EXIF's; ``Orientation/up`` when absent or bad.
    let orientation: Orientation
    /// Whether the page has an alpha channel the RGBA reader keeps.
    let hasAlpha: Bool
    /// Whether the RGBA reader's raster holds premultiplied colour that must be made straight.
    let rasterIsPremultiplied: Bool

    private let file: TIFFMemoryFile
    /// Set for a page libtiff's RGBA reader refuses and this package reads itself.
    private let cmyk16: TIFFCMYK16Reader?

    /// Reads the current directory's header.
    init(_ file: TIFFMemoryFile) throws {
        self.file = file
        var image = TIFFRGBAImage()
        var message = [CChar](repeating: 0, count: 1024)
        guard TIFFRGBAImageBegin(&image, file.tiff, 1, &message) != 0 else {
            guard file.state.errors.isEmpty, let reader = TIFFCMYK16Reader(file) else {
                throw Self.beginError(file, message)
            }
            cmyk16 = reader
            storedSize = reader.storedSize
            orientation = reader.orientation
            (hasAlpha, rasterIsPremultiplied) = (false, false)
            return
        }
        cmyk16 = nil
        defer { TIFFRGBAImageEnd(&image) }
        try file.checkErrors("reading the page header")
        storedSize = PixelSize(width: Int(image.width), height: Int(image.height))
        orientation = Orientation(rawValue: Int(image.orientation)) ?? .up
        (hasAlpha, rasterIsPremultiplied) = Self.alphaHandling(of: image)
    }

    /// Decodes the page to upright RGBA (straight alpha), then the thumbnail and scale-down options. `profile` is
    /// the page's colour description; the result says what the pixels carry: `profile` itself, for the shared
    /// conversion, or the space of a conversion done here from the stored samples (``TIFFColorManagedReader``).
    ///
    /// With ``DecodeOptions/keepsHighBitDepth`` a 16-bit RGB or gray page (``TIFFDeepReader``) keeps its samples;
    /// `hasAlpha` is then the deep reader's.
    func decode(options: DecodeOptions, profile: ColorProfile?) throws
        -> (frame: ImageFrame, reduced: Bool, colorProfile: ColorProfile?, hasAlpha: Bool)
    {
        try options.limits.check(storedSize)
        if options.keepsHighBitDepth, let deep = TIFFDeepReader(file) {
            let conversion = DeepColorConversion(from: profile, for: options.colorHandling, keepingDepth: true)
            let finished = try options.finish(deep: try deep.read(converting: conversion), sourceSize: storedSize,
                                              orientation: orientation)
            return (try ImageFrame(deep: finished.pixels), finished.reduced,
                    conversion == nil ? profile : conversion?.resultProfile, deep.hasAlpha)
        }
        // A thumbnail is converted after its scale-down, from 8 bits: within rounding of converting first.
        let fullSize = options.targetSize(forDisplayed: orientation.displayedSize(of: storedSize)) == nil
        if let managed = TIFFColorManagedReader(file, profile: profile, handling: options.colorHandling,
                                                convertsDeepSamples: fullSize) {
            let raster = try PixelBuffer(width: storedSize.width, height: storedSize.height) {
                try managed.read(into: $0)
            }
            let finished = try options.finish(raster, sourceSize: storedSize, orientation: orientation)
            return (ImageFrame(pixels: finished.pixels), finished.reduced, managed.resultProfile, hasAlpha)
        }
        if let cmyk16 {
            let raster = try PixelBuffer(width: storedSize.width, height: storedSize.height) {
                try cmyk16.read(into: $0)
            }
            let finished = try options.finish(raster, sourceSize: storedSize, orientation: orientation)
            return (ImageFrame(pixels: finished.pixels), finished.reduced, profile, hasAlpha)
        }
        var image = TIFFRGBAImage()
        var message = [CChar](repeating: 0, count: 1024)
        guard TIFFRGBAImageBegin(&image, file.tiff, 1, &message) != 0 else {
            throw Self.beginError(file, message)
        }
        defer { TIFFRGBAImageEnd(&image) }
        // Asking for the file's own orientation makes the reader copy rows and columns as stored (no flip);
        // `finish` then applies the tag like EXIF, including the transposing values 5–8 the reader cannot do.
        image.req_orientation = image.orientation
        let width = storedSize.width, height = storedSize.height
        let raster = try PixelBuffer(width: width, height: height) { bytes in
            // Zeroed first: a reader that stops early must not leave recycled memory visible.
            bytes.initializeMemory(as: UInt8.self, repeating: 0)
            let words = bytes.assumingMemoryBound(to: UInt32.self).baseAddress!
            guard TIFFRGBAImageGet(&image, words, UInt32(width), UInt32(height)) != 0 else {
                throw file.error(.badImageData, "the pixel data cannot be read")
            }
            try file.checkErrors("reading the pixel data")
            // Each word is 0xAABBGGRR: on a little-endian machine its bytes already are R, G, B, A.
            #if _endian(big)
            for index in 0..<(width * height) { words[index] = words[index].byteSwapped }
            #endif
            if rasterIsPremultiplied {
                AlphaPremultiplication.unpremultiply(
                    bytes.assumingMemoryBound(to: UInt8.self).baseAddress!, pixels: width * height)
            }
        }
        let finished = try options.finish(raster, sourceSize: storedSize, orientation: orientation)
        return (ImageFrame(pixels: finished.pixels), finished.reduced, profile, hasAlpha)
    }

    /// Which pages keep alpha, and whether libtiff's raster has it premultiplied: its RGB (and planar RGB)
    /// readers premultiply unassociated alpha and copy associated alpha as stored, so both come out
    /// premultiplied; its 8-bit gray reader copies gray and alpha as stored; the 16-bit gray, palette, CMYK
    /// and YCbCr readers drop alpha.
    private static func alphaHandling(of image: TIFFRGBAImage) -> (hasAlpha: Bool, premultiplied: Bool) {
        guard image.alpha != 0 else { return (false, false) }
        switch Int32(image.photometric) {
        case PHOTOMETRIC_RGB:
            return (true, true)
        case PHOTOMETRIC_MINISBLACK, PHOTOMETRIC_MINISWHITE:
            guard image.bitspersample == 8, image.samplesperpixel >= 2 else { return (false, false) }
            return (true, Int32(image.alpha) == EXTRASAMPLE_ASSOCALPHA)
        default:
            return (false, false)
        }
    }

    private static func beginError(_ file: TIFFMemoryFile, _ message: [CChar]) -> ImageError {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // A directory libtiff parsed but cannot convert (say, 32-bit float samples) is a valid file we cannot
        // read; a directory it could not parse at all has left an error behind.
        if file.state.errors.isEmpty, !text.isEmpty {
            return ImageError(.unsupportedFormat, "TIFF: \(text)")
        }
        return file.error(.badImageData, text.isEmpty ? "the page header cannot be read" : text)
    }
}
