import CHeif
import Foundation
import WebImage

extension HEIFCoder {
    /// The first thumbnail embedded in `data` for its primary image, decoded whatever its size (then reduced as
    /// `options` ask), or `nil` when the file has none. Reads any file libheif parses: HEIC and HEIF, and AVIF
    /// too, whose own decoder (libavif) does not expose thumbnail items; the image carries the format `data` is
    /// detected as. This is what ``DecodeOptions/prefersEmbeddedThumbnail`` decodes.
    /// - Throws: ``ImageError`` when the file cannot be parsed or the thumbnail cannot be decoded, or is over
    ///   `options.limits`.
    public static func embeddedThumbnail(of data: Data, options: DecodeOptions) throws -> Image? {
        let detected = ImageFormat.detect(data)
        return try data.withUnsafeBytes { bytes in
            try HEIFFile.withFile(bytes) { file in
                try firstThumbnail(of: file, format: detected == .unknown ? .heif : detected, options: options)
            }
        }
    }

    /// The first embedded thumbnail, as libvips's `heifload` picks one for imgproxy: decoded at its own size,
    /// then reduced as `options` ask. The file's limits apply to the thumbnail, the only thing decoded.
    static func firstThumbnail(of file: HEIFFile, format: ImageFormat, options: DecodeOptions) throws -> Image? {
        let thumbnails = file.thumbnails()
        defer { thumbnails.forEach { heif_image_handle_release($0.handle) } }
        guard let thumbnail = thumbnails.first else { return nil }
        var pixels = try HEIFImageDecoder.decode(thumbnail.handle, limits: options.limits).pixels
        if let target = options.targetSize(forDisplayed: pixels.size) {
            pixels = try pixels.resized(to: target, filter: .area)
        }
        let hasAlpha = heif_image_handle_has_alpha_channel(thumbnail.handle) != 0
        var image = Image(frames: [ImageFrame(pixels: pixels)], loopCount: 1, format: format,
                          scale: options.resolvedScale, orientation: .up,
                          flags: hasAlpha ? [.hasAlpha, .thumbnail] : [.thumbnail])
        // A thumbnail without a colour description of its own was made from the primary image's samples.
        image.colorProfile = HEIFColorProfile.profile(of: thumbnail.handle, contentPeak: file.contentPeak)
            ?? HEIFColorProfile.profile(of: file.primary, contentPeak: file.contentPeak)
        return image
    }
}
