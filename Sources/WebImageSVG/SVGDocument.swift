import CCairo
import CRsvg
import Foundation
import WebImage
import WebImageCairo

/// One parsed SVG document: a librsvg handle made from bytes alone.
///
/// The handle is created with `rsvg_handle_new_from_data`, which sets no base file or URI and no
/// `RSVG_HANDLE_FLAG_UNLIMITED`: with no base, librsvg's URL resolver refuses every `file:`, `http:` or relative
/// reference (only `data:` URLs inside the document load), and without the flag libxml2 keeps its limits on
/// entity expansion and document depth, so an entity bomb ends in a parse error instead of gigabytes.
/// Used by one decode at a time; not shared between tasks.
final class SVGDocument {
    private let handle: OpaquePointer

    /// Parses the whole document (librsvg reads it all before it answers anything, even the size).
    init(_ data: Data) throws {
        guard !data.isEmpty else { throw ImageError(.badImageData, "SVG: the data is empty") }
        guard data.count <= Int(Int32.max) else {
            throw ImageError(.imageTooLarge, "SVG: \(data.count) bytes of XML is more than librsvg reads")
        }
        var error: UnsafeMutablePointer<GError>?
        let made = data.withUnsafeBytes { bytes in
            rsvg_handle_new_from_data(
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(bytes.count), &error)
        }
        guard let made else { throw Self.error(error, action: "parsing the document") }
        handle = made
        // CSS pixels: 96 to the inch, as rsvg-convert and browsers use (librsvg's own default is 90).
        rsvg_handle_set_dpi(handle, SVGIntrinsicSize.dpi)
    }

    deinit { g_object_unref(handle) }

    /// The size a default decode renders, in whole pixels; see ``SVGCoder`` for the rules.
    func intrinsicSize() throws -> (exact: (width: Double, height: Double), pixels: PixelSize) {
        let exact = SVGIntrinsicSize.resolve(handle)
        return (exact, try SVGIntrinsicSize.pixels(exact))
    }

    /// Renders the document so that its intrinsic box of `exact` points fills `target` pixels: the cairo context
    /// is scaled, so shapes are drawn at the asked size (crisp), not drawn small and resampled.
    func render(exact: (width: Double, height: Double), pixels: PixelSize, into target: PixelSize) throws
        -> PixelBuffer
    {
        try CairoCanvas.render(target, format: "SVG") { context in
            // Scale by whole-pixel sizes so that a full-size render is exactly the unscaled one.
            cairo_scale(context, Double(target.width) / Double(pixels.width),
                        Double(target.height) / Double(pixels.height))
            var viewport = RsvgRectangle(x: 0, y: 0, width: exact.width, height: exact.height)
            var error: UnsafeMutablePointer<GError>?
            guard rsvg_handle_render_document(handle, context, &viewport, &error) != 0 else {
                throw Self.error(error, action: "rendering")
            }
        }
    }

    /// A librsvg failure as a typed error (the document is what failed, whatever librsvg's reason), freeing it.
    static func error(_ error: UnsafeMutablePointer<GError>?, action: String) -> ImageError {
        defer { if let error { g_error_free(error) } }
        let message = error.flatMap { $0.pointee.message.map { String(cString: $0) } }?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown error"
        return ImageError(.badImageData, "SVG: librsvg failed \(action): \(message)")
    }
}
