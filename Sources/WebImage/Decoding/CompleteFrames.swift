/// What a lenient decode read — `decodeCompleteFrames(_:options:)` of ``GIFCoder``, ``WebPCoder`` and
/// ``PNGCoder`` — the frames that were read completely, and why reading stopped before the end of the file.
///
/// The coders' `decode(_:options:)` is strict and throws `ImageError.Code.badImageData` for the same data, so a
/// cut download is never taken (and cached) as a shorter animation; the lenient decode is for showing what
/// arrived, as browsers do.
package struct CompleteFrames: Sendable {
    /// Every frame that was read completely, composited exactly as in the whole file; at least one.
    package var image: Image
    /// Why reading stopped before the end of the file (always `ImageError.Code.badImageData`; each coder
    /// documents its messages), or `nil` when the whole file was read.
    package var error: ImageError?

    /// Creates a result.
    package init(image: Image, error: ImageError?) {
        self.image = image
        self.error = error
    }
}
