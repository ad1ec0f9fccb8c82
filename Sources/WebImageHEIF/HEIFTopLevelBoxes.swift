import WebImage

/// The types of the top-level ISO BMFF boxes of a file, read from their headers only.
///
/// libheif 1.15 reads still items (the `meta` box) and nothing of an image sequence's `moov` track; this tells a
/// sequence with no still image (a valid file libheif cannot read: ``ImageError/Code/unsupportedFormat``) from a
/// damaged still (``ImageError/Code/badImageData``) before libheif is asked.
enum HEIFTopLevelBoxes {
    /// At most this many boxes are looked at: real files have a handful (`ftyp`, `meta`, `moov`, `mdat`, `free`).
    static let maximumBoxes = 64

    /// The types of the top-level boxes, a box cut by the end of the data included.
    static func types(in bytes: UnsafeRawBufferPointer) -> [String] {
        ISOBMFFBoxes.walk(bytes, limit: maximumBoxes).boxes.map(\.type)
    }

    /// Whether the file is an image sequence without a still primary image (a `moov` box and no `meta` box).
    static func isSequenceWithoutStill(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let found = types(in: bytes)
        return found.contains("moov") && !found.contains("meta")
    }
}
