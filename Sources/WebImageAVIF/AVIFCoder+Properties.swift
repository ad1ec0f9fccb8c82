import CAVIF
import Foundation
import WebImage

extension AVIFCoder {
    /// Reads an AVIF file's properties by parsing its boxes only (`avifDecoderParse`): `ispe` or the track
    /// size, `irot`/`imir`/Exif, the alpha item or track, and a sequence's sample and time-to-sample tables
    /// for frame count and durations, and the colour boxes. No AV1 data is decoded. The size is reported after orientation.
    /// libavif's own header limits still apply (sides over 32 768, or more than 16 384² pixels, are refused
    /// with ``ImageError/Code/imageTooLarge``).
    public func properties(of data: Data) throws -> ImageProperties {
        try data.withUnsafeBytes { bytes in
            let handle = try AVIFDecoderHandle.parse(bytes, sizeLimit: Int.max)
            let header = try AVIFHeader(handle, bytes: bytes)
            guard header.storedSize.width > 0, header.storedSize.height > 0 else {
                throw ImageError(.badImageData, "AVIF: the header declares an empty image (\(header.storedSize))")
            }
            var properties = ImageProperties(
                format: .avif, size: header.orientation.displayedSize(of: header.storedSize),
                frameCount: header.frameCount, loopCount: header.loopCount, hasAlpha: header.hasAlpha,
                orientation: header.orientation, frameDurations: header.frameDurations)
            let image = handle.decoder.pointee.image
            let peak = ISOBMFFContentPeak.read(bytes)
            properties.describeColor(image.flatMap { AVIFColorProfile.profile(of: $0, contentPeak: peak) },
                                     untagged: image?.pointee.yuvFormat == AVIF_PIXEL_FORMAT_YUV400 ? .gray : .sRGB)
            return properties
        }
    }
}
