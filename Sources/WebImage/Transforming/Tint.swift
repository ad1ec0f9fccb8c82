extension ImageTransformers {
    /// How a tint colour is combined with the image (a documented subset of Core Graphics' blend modes).
    ///
    /// Every mode keeps the image's shape: where the image is transparent the result is transparent. Except
    /// for ``sourceIn``, the tint's alpha is the strength of the effect (source-atop compositing): the result's
    /// colour is `tintAlpha × B(image, tint) + (1 − tintAlpha) × image` and its alpha the image's, where `B`
    /// is the mode's blend function on colours in 0...1 (W3C Compositing and Blending).
    public enum TintBlendMode: String, Sendable, CaseIterable, Codable {
        /// The tint colour replaces the image's colour; alpha is the image's alpha × the tint's alpha
        /// (a one-colour silhouette, as for template icons). The default.
        case sourceIn
        /// The tint colour laid over the image: `B = tint`.
        case sourceAtop
        /// `B = image × tint`: darkens.
        case multiply
        /// `B = 1 − (1 − image)(1 − tint)`: lightens.
        case screen
        /// Multiply or screen depending on the image: contrast with the tint's hue.
        case overlay
        /// `B = min(image, tint)`.
        case darken
        /// `B = max(image, tint)`.
        case lighten

        /// The blend function on one colour channel, both in 0...1.
        func blend(image: Double, tint: Double) -> Double {
            switch self {
            case .sourceIn, .sourceAtop: tint
            case .multiply: image * tint
            case .screen: image + tint - image * tint
            case .overlay: image <= 0.5 ? 2 * image * tint : 1 - 2 * (1 - image) * (1 - tint)
            case .darken: min(image, tint)
            case .lighten: max(image, tint)
            }
        }
    }

    /// Tints with a colour through a blend mode (SDWebImage's `SDImageTintTransformer`).
    ///
    /// Computed exactly per channel value through lookup tables, so it is one pass over the pixels; a 16-bit
    /// frame (``ImageFrame/deepPixels``) is tinted in 16 bits by the same tables made 16 bits deep. Fully
    /// transparent pixels become (0, 0, 0, 0).
    ///
    /// Key: `Tint(#rrggbbaa,MODE)`: `Tint(#ff000080,multiply)`.
    public struct Tint: ImageTransformer {
        /// The tint colour (straight alpha).
        public var color: RGBA
        /// How the colour is combined with the image.
        public var blendMode: TintBlendMode

        /// A tint with `color` through `blendMode`.
        public init(_ color: RGBA, blendMode: TintBlendMode = .sourceIn) {
            self.color = color
            self.blendMode = blendMode
        }

        /// The stable cache-key identity, in the format documented on the type.
        public var key: String { "Tint(\(TransformerKeyFormat.color(color)),\(blendMode.rawValue))" }

        /// The transformed image; see the type's documentation for the rules and errors.
        public func transform(_ image: Image) throws -> Image {
            let tables = lookupTables(of: UInt8.self)
            // Made only when a frame is deep: 65 536 entries a channel.
            let deepTables = image.frames.contains { $0.deepPixels != nil } ? lookupTables(of: UInt16.self) : []
            let alphaChange: AlphaChange = blendMode == .sourceIn && color.a < 255 ? .added : .unchanged
            return try image.transformingFrames(
                preservingMetadata: preservesMetadata, alpha: alphaChange,
                deep: { deep in
                    try deep.withUnsafeSamples { source in
                        try deep.sameDepth(deep.size) { Self.apply(deepTables, to: source, into: $0) }
                    }
                }
            ) { pixels in
                try pixels.withUnsafeBytes { source in
                    try PixelBuffer(width: pixels.width, height: pixels.height) { destination in
                        Self.apply(tables, to: source.assumingMemoryBound(to: UInt8.self),
                                   into: destination.assumingMemoryBound(to: UInt8.self))
                    }
                }
            }
        }

        /// Four tables, R G B A, of `Sample.max + 1` entries each, from a source channel value to the result's
        /// (straight alpha), in `Sample`'s whole range (255 or 65 535 is 1).
        ///
        /// In premultiplied terms the result colour is `αt·αi·B + αi·(1 − αt)·Ci` over alpha `αi`; divided by
        /// `αi` the straight colour depends on the image's channel alone, which is what makes tables exact.
        func lookupTables<Sample: FixedWidthInteger & UnsignedInteger>(of _: Sample.Type) -> [Sample] {
            let levels = Int(Sample.max) + 1, top = Double(Sample.max)
            var tables = [Sample](repeating: 0, count: levels * 4)
            let tint = [color.r, color.g, color.b].map { Double($0) / 255 }
            let tintAlpha = Double(color.a) / 255
            for value in 0..<levels {
                let imageValue = Double(value) / top
                for channel in 0..<3 {
                    let result = blendMode == .sourceIn
                        ? tint[channel]
                        : tintAlpha * blendMode.blend(image: imageValue, tint: tint[channel])
                            + (1 - tintAlpha) * imageValue
                    tables[channel * levels + value] = Sample(min(max((result * top).rounded(), 0), top))
                }
                let alpha = blendMode == .sourceIn ? Double(value) * tintAlpha : Double(value)
                tables[3 * levels + value] = Sample(min(max(alpha.rounded(), 0), top))
            }
            return tables
        }

        /// Every pixel of `source` (RGBA samples) through `tables` into `destination`, of the same count.
        @inline(__always)
        private static func apply<Sample: FixedWidthInteger & UnsignedInteger>(
            _ tables: [Sample], to source: UnsafeBufferPointer<Sample>,
            into destination: UnsafeMutableBufferPointer<Sample>
        ) {
            let levels = tables.count / 4
            tables.withUnsafeBufferPointer { table in
                let from = source.baseAddress!, to = destination.baseAddress!
                for index in stride(from: 0, to: source.count, by: 4) {
                    let alpha = table[3 * levels + Int(from[index + 3])]
                    if alpha == 0 {
                        to[index] = 0; to[index + 1] = 0; to[index + 2] = 0; to[index + 3] = 0
                        continue
                    }
                    to[index] = table[Int(from[index])]
                    to[index + 1] = table[levels + Int(from[index + 1])]
                    to[index + 2] = table[2 * levels + Int(from[index + 2])]
                    to[index + 3] = alpha
                }
            }
        }
    }
}
