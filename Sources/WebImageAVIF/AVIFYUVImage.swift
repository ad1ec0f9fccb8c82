import CAVIF
import WebImage

/// Owns a libavif YUV image made from RGBA8 pixels, ready for the encoder; destroyed with the value.
final class AVIFYUVImage {
    let image: UnsafeMutablePointer<avifImage>

    /// Converts `pixels` to YUV: 4:2:0 with BT.601 coefficients for lossy, or 4:4:4 with the identity matrix
    /// for lossless (then Y, U and V are G, B and R exactly, so the round trip is exact). Full range, sRGB
    /// primaries and transfer, as avifenc writes, unless `colorProfile` says what the samples are: then its code
    /// points, or its ICC profile with the code points left unspecified (never sRGB for samples that are not).
    /// The alpha plane is written only when `keepAlpha`.
    init(_ pixels: PixelBuffer, lossless: Bool, keepAlpha: Bool, colorProfile: ColorProfile? = nil) throws {
        guard let width = UInt32(exactly: pixels.width), let height = UInt32(exactly: pixels.height),
              let image = avifImageCreate(width, height, 8, lossless ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV420)
        else {
            throw ImageError(.imageTooLarge, "AVIF: cannot make a \(pixels.size) image")
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
        try pixels.withUnsafeBytes { bytes in
            var rgb = avifRGBImage()
            avifRGBImageSetDefaults(&rgb, image)
            rgb.depth = 8
            rgb.format = AVIF_RGB_FORMAT_RGBA
            rgb.ignoreAlpha = keepAlpha ? 0 : 1
            rgb.alphaPremultiplied = 0
            // libavif only reads through this pointer when converting to YUV.
            rgb.pixels = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
            rgb.rowBytes = UInt32(pixels.bytesPerRow)
            try AVIFStatus.check(avifImageRGBToYUV(image, &rgb), action: "converting RGB to YUV")
        }
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
