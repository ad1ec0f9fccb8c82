import Foundation

/// Windows icons and cursors (ICO and CUR), read and written in Swift; PNG entries go through ``PNGCoder``.
///
/// **Decoding** picks one entry of the directory (see `ICOEntryChoice`): without a thumbnail size the largest
/// (by area, then bit depth); with ``DecodeOptions/thumbnailPixelSize`` the smallest entry at least that size,
/// else the largest; then the usual area-average reduction to the asked size. Entries are PNG files or DIBs (a
/// bitmap without its file header, height doubled, colour bitmap then 1-bit AND mask; 32-bit entries carry
/// their own alpha, see `ICOBitmapDecoder`). Each entry's size and depth come from its own header, not from
/// the directory's width and height bytes. A cursor's hot spot is not reported.
///
/// The result is a still image of that one entry: ``Image/frames`` has one frame, and ``properties(of:)``
/// reports the entry a default decode picks (the largest) with a frame count of 1, not the number of entries.
/// ``Image/hasAlpha`` is set for every bitmap entry (the AND mask is an alpha channel) and for PNG entries
/// whose colour type has alpha or that have a tRNS chunk.
///
/// **Bad input**: a damaged directory, or an entry that points past the end of the data (a cut file), is
/// `ImageError.Code.badImageData`; entries whose embedded header cannot be read are skipped when choosing.
/// ``DecodeOptions/limits`` is checked against the chosen entry's declared size before it is decoded.
///
/// **Encoding** writes an icon of one PNG entry: images larger than 256 pixels on a side (the most an ICO
/// entry can declare) are reduced to fit 256×256 with the area filter, after ``EncodeOptions/maxPixelSize``.
public struct ICOCoder: SingleFormatImageCoder {
    /// Always `ImageFormat.ico` (cursors included).
    public let format = ImageFormat.ico

    /// Creates the coder; it holds no state.
    public init() {}

    /// Decodes the entry of an ICO or CUR file that `options` asks for. See the type's description.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try BMPCoder.checkFrameIndex(options)
        let (pixels, hasAlpha) = try data.withUnsafeBytes { bytes -> (PixelBuffer, Bool) in
            let directory = try ICODirectory(bytes)
            let entry = ICOEntryChoice.entry(among: directory.entries, for: options)
            let image = UnsafeRawBufferPointer(rebasing: bytes[entry.range])
            switch entry.kind {
            case .bitmap:
                return (try ICOBitmapDecoder.decode(image, limits: options.limits), true)
            case .png:
                // Orientation stays off so that the size is the IHDR's, as properties(of:) reports it.
                let pngOptions = DecodeOptions(firstFrameOnly: true, applyOrientation: false, limits: options.limits)
                let decoded = try PNGCoder().decode(Data(image), options: pngOptions)
                return (decoded.pixels, decoded.hasAlpha)
            }
        }
        let (finished, reduced) = try options.finish(pixels, sourceSize: pixels.size, orientation: .up)
        var flags: Image.Flags = hasAlpha ? .hasAlpha : []
        if reduced { flags.insert(.thumbnail) }
        return Image(frames: [ImageFrame(pixels: finished)], format: .ico, scale: options.resolvedScale, flags: flags)
    }

    /// The size and alpha of the entry a default decode picks, from the directory and the entries' headers.
    public func properties(of data: Data) throws -> ImageProperties {
        try data.withUnsafeBytes { bytes in
            let directory = try ICODirectory(bytes)
            let entry = ICOEntryChoice.entry(among: directory.entries, for: DecodeOptions())
            return ImageProperties(format: .ico, size: entry.size, hasAlpha: entry.hasAlpha)
        }
    }

    /// Encodes the first frame as an icon with one PNG entry. See the type's description.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .ico else {
            throw ImageError(.unsupportedFormat, "the ICO coder cannot write \(format.rawValue)")
        }
        var fitting = options
        fitting.maxPixelSize = min(options.maxPixelSize.flatMap { $0 > 0 ? $0 : nil } ?? 256, 256)
        let pixels = try fitting.fittingMaxPixelSize(image.pixels)
        let png = try PNGCoder().encode(Image(pixels: pixels), as: .png, options: EncodeOptions())
        var file = Data()
        func put16(_ value: Int) { file.append(contentsOf: [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]) }
        func put32(_ value: Int) { put16(value & 0xFFFF); put16(value >> 16 & 0xFFFF) }
        put16(0)  // reserved
        put16(1)  // icon
        put16(1)  // one entry
        file.append(UInt8(pixels.width & 0xFF))  // 256 is written as 0
        file.append(UInt8(pixels.height & 0xFF))
        file.append(0)  // no palette
        file.append(0)  // reserved
        put16(1)  // planes
        put16(32)  // bits per pixel
        put32(png.count)
        put32(6 + 16)
        file.append(png)
        return file
    }
}
