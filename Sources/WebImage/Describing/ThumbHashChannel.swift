/// One channel of a ThumbHash (lightness, one of the two colour differences, or alpha) as cosine components:
/// the first `columns` × `rows` of them, cut to a triangle (component `cx`, `cy` is kept while
/// `cx * rows < columns * (rows - cy)`), row by row, without the constant one, which the header keeps.
struct ThumbHashChannel {
    let columns: Int
    let rows: Int
    /// The varying components in ``forEachComponent(columns:rows:_:)``'s order.
    var components: [Double]

    /// Calls `body` with each kept component's `cx`, `cy`, the constant one (0, 0) first.
    static func forEachComponent(columns: Int, rows: Int, _ body: (_ cx: Int, _ cy: Int) -> Void) {
        for cy in 0..<rows {
            var cx = 0
            while cx * rows < columns * (rows - cy) {
                body(cx, cy)
                cx += 1
            }
        }
    }

    /// How many varying components a channel of `columns` × `rows` keeps.
    static func componentCount(columns: Int, rows: Int) -> Int {
        var count = -1
        forEachComponent(columns: columns, rows: rows) { _, _ in count += 1 }
        return count
    }

    /// The channel's varying part at one pixel, given the pixel's horizontal and vertical cosines per component
    /// (`fx[cx]`, `fy[cy]`); each is doubled, as the encoder halved them.
    func value(_ fx: [Double], _ fy: [Double]) -> Double {
        var total = 0.0, index = -1
        Self.forEachComponent(columns: columns, rows: rows) { cx, cy in
            if index >= 0 { total += components[index] * fx[cx] * fy[cy] * 2 }
            index += 1
        }
        return total
    }
}
