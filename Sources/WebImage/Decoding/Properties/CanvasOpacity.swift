/// Whether an animation's composited canvas can show a transparent pixel, worked out from frame rectangles,
/// disposals and transparency declarations alone: the rule behind ``Image/Flags/hasAlpha`` for GIF, APNG and
/// animated WebP, shared by the decoders and the header-only properties readers so that both always agree.
///
/// The canvas starts transparent. A frame that declares no transparency and covers the whole canvas makes it
/// opaque; any other frame leaves it as opaque as it was (its transparent pixels show what lies below). Disposal
/// to the background clears the frame's rectangle; disposal to the previous state restores the canvas from
/// before the frame. The result is a safe superset: a file that declares transparency it never uses counts as
/// having alpha, as ImageIO reports it.
struct CanvasOpacity {
    /// How a frame leaves the canvas for the next one.
    enum Disposal { case keep, clearToTransparent, restorePrevious }

    let canvas: PixelSize
    /// Whether every pixel of the canvas is opaque now.
    private(set) var isOpaque = false
    /// Whether some frame shown so far could show a transparent pixel.
    private(set) var hasShownTransparency = false

    init(canvas: PixelSize) {
        self.canvas = canvas
    }

    /// Accounts for one frame drawn at `rect`, shown, then disposed of.
    mutating func draw(rect: PixelRect, declaresTransparency: Bool, disposal: Disposal) {
        let before = isOpaque
        let covers = rect.x <= 0 && rect.y <= 0
            && rect.x + rect.width >= canvas.width && rect.y + rect.height >= canvas.height
        let shown = before || (covers && !declaresTransparency)
        if !shown { hasShownTransparency = true }
        switch disposal {
        case .keep: isOpaque = shown
        case .clearToTransparent: isOpaque = shown && !intersectsCanvas(rect)
        case .restorePrevious: isOpaque = before
        }
    }

    private func intersectsCanvas(_ rect: PixelRect) -> Bool {
        rect.width > 0 && rect.height > 0 && rect.x < canvas.width && rect.y < canvas.height
            && rect.x + rect.width > 0 && rect.y + rect.height > 0
    }
}
