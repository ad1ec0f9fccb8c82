import Foundation

/// The descriptive metadata a file carries beside its pixels, as the raw blocks the formats store: EXIF, XMP and
/// IPTC. Read on request (``DecodeOptions/readsMetadata``), kept through transforms, and written by the encoders
/// of formats that hold each block (JPEG all three; PNG, WebP, AVIF and JPEG XL EXIF and XMP).
///
/// The colour profile is not part of it: see ``Image/colorProfile``.
public struct ImageMetadata: Sendable, Hashable {
    /// The EXIF block as a TIFF structure, starting with its `II` or `MM` byte-order mark (no `Exif\0\0` prefix).
    public var exif: Data?
    /// The XMP packet: an XML document.
    public var xmp: Data?
    /// The Photoshop image resource block that holds IPTC in JPEG files (the APP13 payload after
    /// `Photoshop 3.0\0`).
    public var iptc: Data?

    /// Blocks larger than this are not read: a real one is a few kilobytes (EXIF in a JPEG is limited to 64 KB),
    /// and a file cannot make a server hold megabytes of text per image through it.
    public static let maximumBlockSize = 1 << 20

    /// Metadata of the blocks given; each may be `nil`.
    public init(exif: Data? = nil, xmp: Data? = nil, iptc: Data? = nil) {
        self.exif = exif
        self.xmp = xmp
        self.iptc = iptc
    }

    /// No block at all.
    public var isEmpty: Bool { exif == nil && xmp == nil && iptc == nil }

    /// This metadata for pixels that were turned upright: the EXIF orientation says 1 (left as is when there is
    /// none), so that a viewer does not turn them a second time.
    public func withOrientationUp() -> ImageMetadata {
        var copy = self
        if let exif, var directory = EXIFDirectory(exif), directory.setOrientationUp() {
            copy.exif = directory.data
        }
        return copy
    }

    /// `nil` when there is no block, else itself: what an ``Image`` stores.
    var unlessEmpty: ImageMetadata? { isEmpty ? nil : self }

    /// A block's bytes when they are within ``maximumBlockSize``.
    static func bounded(_ bytes: UnsafeRawBufferPointer) -> Data? {
        bytes.isEmpty || bytes.count > maximumBlockSize ? nil : Data(bytes)
    }
}
