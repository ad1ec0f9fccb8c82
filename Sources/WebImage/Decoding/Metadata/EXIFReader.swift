/// Reads the orientation tag from EXIF metadata: the TIFF structure inside a JPEG APP1 segment, a PNG `eXIf`
/// chunk or a WebP `EXIF` chunk. Every offset is bounds-checked: hostile metadata yields `nil`, never a crash.
///
/// Not for users (they get orientation from ``ImageCoders/properties(of:)``): `package`, for this package's other
/// modules and tests; the fuzz harnesses reach it with `@testable import`, as they do ``EXIFDirectory``.
package enum EXIFReader {
    /// The orientation stored in `bytes`, which may start with the `Exif\0\0` header or directly with the TIFF
    /// header. `nil` when there is no valid orientation tag.
    package static func orientation(in bytes: UnsafeRawBufferPointer) -> Orientation? {
        EXIFDirectory(bytes)?.orientation
    }
}
