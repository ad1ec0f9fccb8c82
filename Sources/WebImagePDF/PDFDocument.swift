import CPoppler
import Foundation
import WebImage
import WebImageCairo

/// One PDF opened by poppler-glib from bytes in memory: its page count and its pages' sizes come from the
/// cross-reference table and page tree, without drawing anything. Used by one decode at a time.
final class PDFDocument {
    private let document: OpaquePointer

    /// Opens the document. A file that needs a password throws ``ImageError/Code/unsupportedFormat``; a damaged
    /// one throws ``ImageError/Code/badImageData``. The process's first poppler drawing is made before (see
    /// ``PopplerFirstDrawing``).
    convenience init(_ data: Data) throws {
        _ = PopplerFirstDrawing.made
        try self.init(opening: data)
    }

    /// Opens the document without waiting for the process's first drawing: for that drawing itself.
    init(opening data: Data) throws {
        try Self.checkWhole(data)
        // GBytes copies the file: the document may outlive this call's borrow of `data` inside poppler's caches.
        let bytes = data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        var error: UnsafeMutablePointer<GError>?
        guard let opened = poppler_document_new_from_bytes(bytes, nil, &error) else {
            throw Self.error(error)
        }
        document = opened
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(document)) }

    /// Pages in the document, from its page tree.
    var pageCount: Int { Int(poppler_document_get_n_pages(document)) }

    /// Page `index` (from 0); ``ImageError/Code/invalidParameter`` past the last page.
    func page(_ index: Int) throws -> PDFPage {
        let count = pageCount
        guard count > 0 else { throw ImageError(.badImageData, "PDF: the document has no pages") }
        guard index >= 0, index < count else {
            throw ImageError(.invalidParameter, "PDF: page \(index) asked of a \(count)-page document (from 0)")
        }
        guard let page = poppler_document_get_page(document, Int32(index)) else {
            throw ImageError(.badImageData, "PDF: page \(index) cannot be read")
        }
        return PDFPage(page)
    }

    /// Refuses a cut download: a whole PDF ends with `%%EOF` (readers look for it in the last 1 024 bytes, which
    /// leaves room for trailing junk). poppler would otherwise rebuild the table of a truncated file and draw
    /// whatever pages survived, and a cut file would pass for a good one.
    static func checkWhole(_ data: Data) throws {
        guard data.count >= 8 else { throw ImageError(.badImageData, "PDF: \(data.count) bytes is no document") }
        let marker = Array("%%EOF".utf8)
        let tail = Array(data.suffix(1024))
        guard tail.count >= marker.count,
              (0...(tail.count - marker.count)).contains(where: { tail[$0..<$0 + marker.count].elementsEqual(marker) })
        else {
            throw ImageError(.badImageData, "PDF: the file has no %%EOF at its end (truncated?)")
        }
    }

    /// poppler's failure as a typed error, freeing it.
    static func error(_ error: UnsafeMutablePointer<GError>?) -> ImageError {
        defer { if let error { g_error_free(error) } }
        let message = error.flatMap { $0.pointee.message.map { String(cString: $0) } }?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown error"
        if let error, error.pointee.domain == poppler_error_quark(),
           error.pointee.code == Int32(POPPLER_ERROR_ENCRYPTED.rawValue) {
            return ImageError(.unsupportedFormat, "PDF: the document is encrypted with a password (\(message))")
        }
        return ImageError(.badImageData, "PDF: poppler cannot open the document: \(message)")
    }
}

/// One page of an open ``PDFDocument``.
final class PDFPage {
    private let page: OpaquePointer

    init(_ page: OpaquePointer) { self.page = page }

    deinit { g_object_unref(UnsafeMutableRawPointer(page)) }

    /// The page's size in points (1/72 inch), its crop box turned by its `/Rotate`, as viewers show it.
    var pointSize: (width: Double, height: Double) {
        var width = 0.0, height = 0.0
        poppler_page_get_size(page, &width, &height)
        return (width, height)
    }

    /// The page's size in pixels at 72 dpi: one pixel a point, rounded up like `pdftoppm`.
    func pixelSize() throws -> PixelSize {
        try VectorSize.wholePixels(width: pointSize.width, height: pointSize.height, subject: "PDF: the page")
    }

    /// Draws the page on white so that its box of points fills `target` pixels. The cairo context is scaled,
    /// so a thumbnail is drawn at its own resolution rather than resampled.
    func render(into target: PixelSize) throws -> PixelBuffer {
        let points = pointSize
        return try CairoCanvas.render(target, format: "PDF", background: 0xFFFF_FFFF) { context in
            cairo_scale(context, Double(target.width) / points.width, Double(target.height) / points.height)
            poppler_page_render(page, context)
            guard cairo_status(context) == CAIRO_STATUS_SUCCESS else {
                throw ImageError(.badImageData, "PDF: drawing the page failed in cairo")
            }
        }
    }
}
