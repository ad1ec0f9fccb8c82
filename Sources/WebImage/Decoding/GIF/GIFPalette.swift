import CGif

/// A GIF colour table widened to 256 opaque RGBA pixels in memory order, so a palette index can be copied to the
/// canvas with one load and one store.
///
/// Indices past the end of the file's table read as opaque black, as browsers do, so a hostile index never reads
/// outside the table.
struct GIFPalette: Sendable {
    /// Always 256 entries.
    private(set) var colors: [UInt32]
    /// How many entries the file's table declared (a power of two from 2 to 256).
    let declaredCount: Int

    /// Copies giflib's colour map.
    init(colorMap: UnsafeMutablePointer<ColorMapObject>) {
        let map = colorMap.pointee
        let count = min(max(Int(map.ColorCount), 0), 256)
        var colors = [UInt32](repeating: RGBA(0, 0, 0).packed, count: 256)
        if let entries = map.Colors {
            for index in 0..<count {
                let entry = entries[index]
                colors[index] = RGBA(entry.Red, entry.Green, entry.Blue).packed
            }
        }
        self.colors = colors
        declaredCount = count
    }

    private init(colors: [UInt32], declaredCount: Int) {
        self.colors = colors
        self.declaredCount = declaredCount
    }

    /// The table used when a frame has neither a local nor a global one: index *i* is the grey (*i*, *i*, *i*),
    /// as Pillow reads such files. (The GIF specification leaves this to the decoder.)
    static let grayscale = GIFPalette(
        colors: (0..<256).map { RGBA(UInt8($0), UInt8($0), UInt8($0)).packed }, declaredCount: 256)

    /// Draws one row of a frame: the colour of each of `indices` goes to `destination`, except that pixels at the
    /// frame's transparent index keep what is under them. The canvas and the streamed first-frame thumbnail both
    /// draw rows this way.
    func draw(_ indices: UnsafeBufferPointer<UInt8>, into destination: UnsafeMutablePointer<UInt32>,
              transparentIndex: Int?) {
        colors.withUnsafeBufferPointer { colors in
            guard let transparent = transparentIndex else {
                for x in indices.indices { destination[x] = colors[Int(indices[x])] }
                return
            }
            for x in indices.indices {
                let index = Int(indices[x])
                if index != transparent { destination[x] = colors[index] }
            }
        }
    }
}
