import Foundation
import WebImage

/// What of a source's metadata an answer keeps, as imgproxy decides it: everything with `strip_metadata:0`;
/// with the default strip, nothing but who made the image and who owns it (`keep_copyright`, on by default): the
/// EXIF artist and copyright, IPTC's by-line, credit and copyright notice, and XMP's rights, creators,
/// contributors and publishers. Pixels are always upright in an answer, so a kept EXIF orientation says 1.
enum MetadataStripping {
    /// The formats whose answers carry metadata: the rest (GIF, BMP, ICO, TIFF) are written without any.
    static let carryingFormats: Set<OutputFormat> = [.jpeg, .png, .webp, .avif, .jxl]

    /// Whether an answer to `options` in `output` could keep anything, so that the source's metadata is worth
    /// reading.
    static func keepsAny(_ options: ProcessingOptions, output: OutputFormat) -> Bool {
        carryingFormats.contains(output) && (options.stripMetadata == false || options.keepCopyright != false)
    }

    /// What an answer to `options` keeps of `metadata`; `nil` when nothing.
    static func kept(_ metadata: ImageMetadata?, options: ProcessingOptions) -> ImageMetadata? {
        guard let metadata else { return nil }
        if options.stripMetadata == false { return metadata.withOrientationUp() }
        guard options.keepCopyright != false else { return nil }
        var kept = ImageMetadata()
        kept.exif = metadata.exif.flatMap(copyrightEXIF)
        kept.iptc = metadata.iptc.flatMap(IPTCCopyright.kept)
        kept.xmp = metadata.xmp.flatMap(XMPCopyright.kept)
        return kept.isEmpty ? nil : kept
    }

    /// A new EXIF block holding only the source's artist and copyright; `nil` when it has neither.
    static func copyrightEXIF(_ exif: Data) -> Data? {
        guard let directory = EXIFDirectory(exif) else { return nil }
        let texts = [EXIFDirectory.artistTag, EXIFDirectory.copyrightTag].compactMap { tag in
            directory.text(of: tag).map { (tag: tag, text: $0) }
        }
        return texts.isEmpty ? nil : EXIFDirectory.block(texts: texts)
    }
}
