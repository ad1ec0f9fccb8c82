import WebImage

/// The demo's pictures: deterministic, text-free patterns (gradients, rings, checks, stripes, a moving disc),
/// each a function of the image's number so every run serves the same bytes.
enum DemoPatterns {
    /// A still picture of `size`, pattern and colours chosen by `seed`.
    static func still(_ seed: Int, size: PixelSize) throws -> PixelBuffer {
        let hue = palette(seed)
        switch seed % 4 {
        case 0:  // diagonal gradient between two colours
            return try paint(size) { x, y in
                mix(hue.0, hue.1, Double(x + y) / Double(size.width + size.height - 2))
            }
        case 1:  // concentric rings around an off-centre point
            let centerX = Double(size.width) * 0.4, centerY = Double(size.height) * 0.6
            return try paint(size) { x, y in
                let distance = ((Double(x) - centerX) * (Double(x) - centerX)
                                + (Double(y) - centerY) * (Double(y) - centerY)).squareRoot()
                return Int(distance / 14) % 2 == 0 ? hue.0 : mix(hue.1, hue.0, Double(y) / Double(size.height))
            }
        case 2:  // checkerboard over a vertical gradient
            let cell = 16 + seed % 3 * 8
            return try paint(size) { x, y in
                (x / cell + y / cell) % 2 == 0 ? hue.0 : mix(hue.1, RGBA(20, 20, 20), Double(y) / Double(size.height))
            }
        default:  // diagonal stripes with a disc
            let radius = Double(min(size.width, size.height)) / 3
            return try paint(size) { x, y in
                let dx = Double(x - size.width / 2), dy = Double(y - size.height / 2)
                if dx * dx + dy * dy < radius * radius { return hue.1 }
                return (x + 2 * y) / 12 % 2 == 0 ? hue.0 : RGBA(240, 240, 235)
            }
        }
    }

    /// Frame `frame` of `count`: a disc travelling across a gradient (alpha at the corners when `alpha`).
    static func animationFrame(_ seed: Int, frame: Int, count: Int, size: PixelSize, alpha: Bool) throws -> PixelBuffer {
        let hue = palette(seed)
        let progress = Double(frame) / Double(count)
        let centerX = Double(size.width) * (0.15 + 0.7 * progress), centerY = Double(size.height) / 2
        let radius = Double(size.height) / 4
        return try paint(size) { x, y in
            let dx = Double(x) - centerX, dy = Double(y) - centerY
            if dx * dx + dy * dy < radius * radius { return hue.1 }
            var color = mix(hue.0, RGBA(250, 250, 250), Double(y) / Double(size.height))
            if alpha && (x < 8 || x >= size.width - 8) && (y < 8 || y >= size.height - 8) { color.a = 0 }
            return color
        }
    }

    /// Two colours picked from a fixed list by `seed`.
    static func palette(_ seed: Int) -> (RGBA, RGBA) {
        let colors = [RGBA(230, 57, 70), RGBA(29, 53, 87), RGBA(69, 123, 157), RGBA(244, 162, 97),
                      RGBA(42, 157, 143), RGBA(233, 196, 106), RGBA(131, 56, 236), RGBA(255, 0, 110)]
        return (colors[seed % colors.count], colors[(seed * 3 + 1) % colors.count])
    }

    static func mix(_ a: RGBA, _ b: RGBA, _ t: Double) -> RGBA {
        let t = min(1, max(0, t))
        func channel(_ x: UInt8, _ y: UInt8) -> UInt8 { UInt8((Double(x) * (1 - t) + Double(y) * t).rounded()) }
        return RGBA(channel(a.r, b.r), channel(a.g, b.g), channel(a.b, b.b), 255)
    }

    /// A buffer whose every pixel is `color(x, y)`.
    static func paint(_ size: PixelSize, _ color: (Int, Int) -> RGBA) throws -> PixelBuffer {
        try PixelBuffer(width: size.width, height: size.height) { raw in
            var offset = 0
            for y in 0..<size.height {
                for x in 0..<size.width {
                    let pixel = color(x, y)
                    raw[offset] = pixel.r
                    raw[offset + 1] = pixel.g
                    raw[offset + 2] = pixel.b
                    raw[offset + 3] = pixel.a
                    offset += 4
                }
            }
        }
    }
}
