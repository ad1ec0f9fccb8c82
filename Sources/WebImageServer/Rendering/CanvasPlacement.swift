import WebImage

/// Puts every frame of an image on a larger transparent canvas (imgproxy's `extend`, `extend_aspect_ratio` and
/// `padding`, which all embed the image the same way). The added area is transparent black; the `background`
/// option, or the encoder's white for formats without alpha, fills it later, as imgproxy flattens after
/// embedding.
enum CanvasPlacement {
    /// `image` on a canvas of `canvas` pixels with its top-left corner at `origin`; the image unchanged when the
    /// canvas is its own size. The canvas must hold the image.
    static func embed(_ image: Image, in canvas: PixelSize, at origin: (x: Int, y: Int)) throws -> Image {
        if canvas == image.size { return image }
        var result = try image.mappingFrames(deep: { try $0.embedded(in: canvas, at: origin) }) {
            try $0.embedded(in: canvas, at: origin)
        }
        result.flags.insert(.hasAlpha)
        return result
    }

    /// `image` extended to `box` (a side of 0 keeps the image's), placed by `gravity` with offsets in pixels
    /// times `dpr`; the image unchanged when it already fills the box.
    static func extend(_ image: Image, to box: PixelSize, gravity: Gravity, dpr: Double) throws -> Image {
        let size = image.size
        guard box.width > size.width || box.height > size.height else { return image }
        let canvas = PixelSize(width: max(size.width, box.width), height: max(size.height, box.height))
        let rect = GravityPlacement.rect(of: size, in: canvas, gravity: gravity, dpr: dpr)
        return try embed(image, in: canvas, at: (rect.x, rect.y))
    }

    /// `image` with `padding` pixels of transparency around it.
    static func pad(_ image: Image, by padding: ProcessingOptions.Padding) throws -> Image {
        guard !padding.isEmpty else { return image }
        let canvas = PixelSize(width: image.size.width + padding.left + padding.right,
                               height: image.size.height + padding.top + padding.bottom)
        return try embed(image, in: canvas, at: (padding.left, padding.top))
    }
}
