import CAVIF
import WebImage

/// The orientation of an AVIF image, from its HEIF transformative properties or, failing those, its Exif tag.
///
/// libavif 0.11 reads `irot` and `imir` but does not apply them to the pixels. HEIF (ISO/IEC 23008-12) applies
/// them in the order MIAF fixes: first `irot` (a turn of angle × 90° anticlockwise), then `imir` (mode 0
/// exchanges top and bottom, mode 1 left and right). The pair maps onto exactly one EXIF orientation.
///
/// When the file has neither property, the Exif orientation tag is used. When it has both, the properties win
/// and the Exif tag is not applied on top: libavif's own encoder copies a source JPEG's Exif orientation into
/// `irot`/`imir` and keeps the Exif payload, so applying both would turn such images twice.
enum AVIFOrientation {
    static func of(_ image: avifImage) -> Orientation {
        let flags = image.transformFlags
        let hasRotation = flags & AVIF_TRANSFORM_IROT.rawValue != 0
        let hasMirror = flags & AVIF_TRANSFORM_IMIR.rawValue != 0
        if hasRotation || hasMirror {
            return combining(quarterTurns: hasRotation ? Int(image.irot.angle & 3) : 0,
                             mirrorMode: hasMirror ? Int(image.imir.mode & 1) : nil)
        }
        guard image.exif.size > 0, let data = image.exif.data else { return .up }
        return exifOrientation(in: UnsafeRawBufferPointer(start: data, count: image.exif.size)) ?? .up
    }

    /// The EXIF orientation equal to turning the stored image `quarterTurns` × 90° anticlockwise, then mirroring
    /// it (`mirrorMode` 0: top and bottom exchanged, 1: left and right; `nil`: no mirror).
    static func combining(quarterTurns: Int, mirrorMode: Int?) -> Orientation {
        switch (quarterTurns & 3, mirrorMode) {
        case (0, nil): .up
        case (0, 0): .downMirrored
        case (0, _): .upMirrored
        case (1, nil): .left
        case (1, 0): .leftMirrored
        case (1, _): .rightMirrored
        case (2, nil): .down
        case (2, 0): .upMirrored
        case (2, _): .downMirrored
        case (_, nil): .right
        case (_, 0): .rightMirrored
        case (_, _): .leftMirrored
        }
    }

    /// The orientation tag in an Exif payload. libavif hands over the item's bytes after the 4-byte TIFF
    /// header offset, which usually start with `Exif\0\0` or the TIFF header itself; some writers put other
    /// bytes first, so the TIFF header is also looked for near the start.
    static func exifOrientation(in bytes: UnsafeRawBufferPointer) -> Orientation? {
        if let orientation = EXIFReader.orientation(in: bytes) { return orientation }
        let searched = min(bytes.count, 64)
        guard searched >= 4 else { return nil }
        for start in 0..<(searched - 3) {
            let isTIFF = (bytes[start] == 0x49 && bytes[start + 1] == 0x49 && bytes[start + 2] == 0x2A
                          && bytes[start + 3] == 0)
                || (bytes[start] == 0x4D && bytes[start + 1] == 0x4D && bytes[start + 2] == 0 && bytes[start + 3] == 0x2A)
            if isTIFF { return EXIFReader.orientation(in: UnsafeRawBufferPointer(rebasing: bytes[start...])) }
        }
        return nil
    }
}
