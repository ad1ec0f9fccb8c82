extension IncrementalDecoder {
    /// When ``IncrementalDecoder/currentImage()`` builds a new partial image.
    ///
    /// Decoding the bytes as they arrive costs about what a one-shot decode costs. A partial image costs one pass
    /// over the whole bitmap on top (a copy of the rows so far, or a JPEG output pass), whatever the chunk size:
    /// rebuilt after every 16 KB chunk of a 12 MP photo it would cost ten times the decoding. So a new one is made
    /// only once enough new bytes have arrived to pay for it, counted per pixel of the bitmap being decoded (after
    /// any DCT or libwebp scaling, so a thumbnail's partial images, being cheap, come often).
    public struct PartialImagePolicy: Sendable, Hashable {
        /// New bytes that must arrive, per pixel of the bitmap, before a partial image is rebuilt. The first one is
        /// built as soon as there is something to show. 0 rebuilds whenever there is more to show.
        public var newBytesPerPixel: Double

        /// Creates a policy; see ``newBytesPerPixel``.
        public init(newBytesPerPixel: Double) {
            self.newBytesPerPixel = max(0, newBytesPerPixel)
        }

        /// One new partial image per `pixels / 16` new bytes (750 KB for a 12 MP photo, 30 KB for 800×600): about
        /// five over a typical download. Measured on a 12 MP progressive JPEG fed in 16 KB chunks with
        /// ``IncrementalDecoder/currentImage()`` asked after each, the whole decode then stays well within twice
        /// the time of a one-shot decode.
        public static let `default` = PartialImagePolicy(newBytesPerPixel: 1.0 / 16)

        /// A new partial image whenever the decoder can show more: every batch of rows, every pass or scan.
        /// Right for tests and for small images on slow links; costly for large images on fast ones.
        public static let everyChange = PartialImagePolicy(newBytesPerPixel: 0)

        /// The new bytes needed before rebuilding a partial image of `pixels` pixels.
        func spacing(forPixels pixels: Int) -> Int {
            let bytes = newBytesPerPixel * Double(max(pixels, 0))
            return bytes < Double(Int.max) ? Int(bytes) : Int.max
        }
    }
}
