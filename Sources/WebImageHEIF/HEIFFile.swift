import CHeif
import WebImage

/// A HEIF file parsed by libheif (boxes and item properties only: no image data is decoded here) with its
/// primary image handle. The bytes are read in place, so they must outlive it: use it only inside
/// ``withFile(_:_:)``.
final class HEIFFile {
    let context: OpaquePointer
    let primary: OpaquePointer
    /// The HDR content peak the file's properties state (``ColorCodePoints/contentPeak``).
    let contentPeak: Double?

    private init(context: OpaquePointer, primary: OpaquePointer, contentPeak: Double?) {
        self.context = context
        self.primary = primary
        self.contentPeak = contentPeak
    }

    /// Parses `bytes` and runs `body` with the file; every libheif object is released afterwards.
    static func withFile<R>(_ bytes: UnsafeRawBufferPointer, _ body: (HEIFFile) throws -> R) throws -> R {
        guard let base = bytes.baseAddress, bytes.count >= 16 else {
            throw ImageError(.badImageData, "HEIF: the data ends inside the header")
        }
        if HEIFTopLevelBoxes.isSequenceWithoutStill(bytes) {
            throw ImageError(.unsupportedFormat,
                             "HEIF: an image sequence without a still primary image (libheif 1.15 reads no 'moov' tracks)")
        }
        guard let context = heif_context_alloc() else {
            throw ImageError(.imageTooLarge, "HEIF: cannot allocate a libheif context")
        }
        defer { heif_context_free(context) }
        // Grid tiles are decoded on the calling thread: by default libheif starts a thread per tile, and a grid of
        // thousands of tiles (FuzzHEIF found one in 1.8 KB) exhausts memory and the process's threads. Decodes
        // already run one per core in the pipeline, so nothing is lost.
        heif_context_set_max_decoding_threads(context, 0)
        try HEIFError.check(heif_context_read_from_memory_without_copy(context, base, bytes.count, nil),
                            "reading the file structure")
        var primary: OpaquePointer?
        try HEIFError.check(heif_context_get_primary_image_handle(context, &primary), "finding the primary image")
        guard let primary else { throw ImageError(.badImageData, "HEIF: the file has no primary image") }
        defer { heif_image_handle_release(primary) }
        return try body(HEIFFile(context: context, primary: primary, contentPeak: ISOBMFFContentPeak.read(bytes)))
    }

    /// The primary image's size after libheif's transformations (`irot`, `imir`, `clap`): what decoding returns.
    var size: PixelSize { Self.size(of: primary) }

    /// Whether the primary image has an alpha plane.
    var hasAlpha: Bool { heif_image_handle_has_alpha_channel(primary) != 0 }

    /// The embedded thumbnails' handles with their sizes; the caller releases each handle.
    func thumbnails() -> [(handle: OpaquePointer, size: PixelSize)] {
        let count = Int(heif_image_handle_get_number_of_thumbnails(primary))
        guard count > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: count)
        let filled = Int(heif_image_handle_get_list_of_thumbnail_IDs(primary, &ids, Int32(count)))
        var result: [(handle: OpaquePointer, size: PixelSize)] = []
        for id in ids.prefix(filled) {
            var handle: OpaquePointer?
            let error = heif_image_handle_get_thumbnail(primary, id, &handle)
            // An unreadable thumbnail is no reason to fail: the primary image is still there.
            guard error.code == heif_error_Ok, let handle else { continue }
            result.append((handle, Self.size(of: handle)))
        }
        return result
    }

    /// A handle's size after transformations (libheif 1.15 reports the transformed size here; `ispe` is the
    /// coded size, see ``codedArea(of:)``).
    static func size(of handle: OpaquePointer) -> PixelSize {
        PixelSize(width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle)))
    }

    /// The coded (`ispe`) size in pixels, which a crop (`clap`) makes larger than ``size(of:)``: libheif decodes
    /// this much before cropping, so the limits apply to it too.
    static func codedSize(of handle: OpaquePointer) -> PixelSize {
        PixelSize(width: Int(heif_image_handle_get_ispe_width(handle)),
                  height: Int(heif_image_handle_get_ispe_height(handle)))
    }
}
