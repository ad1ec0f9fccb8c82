import CAVIF
import WebImage

/// Owns a libavif YUV image made from RGBA8 pixels (or a deep bitmap's RGBA16), ready for the encoder; destroyed
/// with the value.
final class AVIFYUVImage {
    let image: UnsafeMutablePointer<avifImage>

    /// Converts `pixels` to YUV: 4:2:0 with BT.601 coefficients for lossy, or 4:4:4 with the identity matrix
    /// for lossless (then Y, U and V are G, B and R exactly, so the round trip is exact). Full range, sRGB
    /// primaries and transfer, as avifenc writes, unless `colorProfile` says what the samples are: then its code
    /// points, or its ICC profile with the code points left unspecified (never sRGB for samples that are not).
    /// The alpha plane is written only when `keepAlpha`. A frame with a deep bitmap is written from it with 10
    /// bits a sample, or 12 when the bitmap has more than 10 (AV1's deepest).
    convenience init(_ frame: ImageFrame, lossless: Bool, keepAlpha: Bool, colorProfile: ColorProfile? = nil) throws {
        guard let deep = frame.deepPixels else {
            try self.init(frame.pixels, lossless: lossless, keepAlpha: keepAlpha, colorProfile: colorProfile)
            return
        }
        try self.init(size: deep.size, depth: deep.significantBits > 10 ? 12 : 10, lossless: lossless,
                      colorProfile: colorProfile)
        try deep.withUnsafeSamples { samples in
            try convert(UnsafeRawBufferPointer(samples), sampleBits: 16, rowBytes: deep.width * 8, keepAlpha: keepAlpha)
        }
    }

    /// The same from RGBA8 pixels, 8 bits a sample.
    convenience init(_ pixels: PixelBuffer, lossless: Bool, keepAlpha: Bool, colorProfile: ColorProfile? = nil) throws {
        try self.init(size: pixels.size, depth: 8, lossless: lossless, colorProfile: colorProfile)
        try pixels.withUnsafeBytes { bytes in
            try convert(bytes, sampleBits: 8, rowBytes: pixels.bytesPerRow, keepAlpha: keepAlpha)
        }
    }

    /// An image of `size` and `depth` with its colour description, planes not yet written.
    private init(size: PixelSize, depth: UInt32, lossless: Bool, colorProfile: ColorProfile?) throws {
        guard let width = UInt32(exactly: size.width), let height = UInt32(exactly: size.height),
              let image = avifImageCreate(width, height, depth,
                                          lossless ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV420)
        else {
            throw ImageError(.imageTooLarge, "AVIF: cannot make a \(size) image")
        }
        self.image = image
        image.pointee.yuvRange = AVIF_RANGE_FULL
        image.pointee.colorPrimaries = UInt16(AVIF_COLOR_PRIMARIES_BT709)
        image.pointee.transferCharacteristics = UInt16(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
        image.pointee.matrixCoefficients = UInt16(
            lossless ? AVIF_MATRIX_COEFFICIENTS_IDENTITY : AVIF_MATRIX_COEFFICIENTS_BT601)
        if let points = colorProfile?.codePoints {
            image.pointee.colorPrimaries = points.primaries
            image.pointee.transferCharacteristics = points.transfer
        } else if let icc = colorProfile?.iccData {
            image.pointee.colorPrimaries = UInt16(AVIF_COLOR_PRIMARIES_UNSPECIFIED)
            image.pointee.transferCharacteristics = UInt16(AVIF_TRANSFER_CHARACTERISTICS_UNSPECIFIED)
            icc.withUnsafeBytes { avifImageSetProfileICC(image, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count) }
        }
    }

    /// Writes the YUV (and alpha) planes from straight-alpha RGBA `bytes` of `sampleBits` (8, or 16 in the
    /// machine's byte order), libavif scaling them to the image's depth.
    private func convert(_ bytes: UnsafeRawBufferPointer, sampleBits: UInt32, rowBytes: Int, keepAlpha: Bool) throws {
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.depth = sampleBits
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.ignoreAlpha = keepAlpha ? 0 : 1
        rgb.alphaPremultiplied = 0
        // libavif only reads through this pointer when converting to YUV.
        rgb.pixels = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
        rgb.rowBytes = UInt32(rowBytes)
        try AVIFStatus.check(avifImageRGBToYUV(image, &rgb), action: "converting RGB to YUV")
    }

    /// Attaches EXIF and XMP for the encoder to write as the file's metadata items (libavif copies them).
    func setMetadata(_ metadata: ImageMetadata?) {
        metadata?.exif?.withUnsafeBytes {
            avifImageSetMetadataExif(image, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count)
        }
        metadata?.xmp?.withUnsafeBytes {
            avifImageSetMetadataXMP(image, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count)
        }
    }

    deinit {
        avifImageDestroy(image)
    }
}
