/// The fields of a ThumbHash as its reference implementation packs them: a 24-bit and a 16-bit little-endian
/// header (the constant lightness and colour differences, their scales, whether there is alpha, whether the image
/// is landscape and its lightness component count on the short side), an alpha byte when there is alpha, then a
/// nibble per varying component.
struct ThumbHashHeader {
    let lightnessDC: Double, pDC: Double, qDC: Double, alphaDC: Double
    let lightnessScale: Double, pScale: Double, qScale: Double, alphaScale: Double
    let hasAlpha: Bool
    let isLandscape: Bool
    /// The lightness component count the header stores (1–7): down for a landscape image, across otherwise; the
    /// other axis has ``longSideCount``.
    let storedCount: Int
    let hash: [UInt8]

    init(_ hash: [UInt8]) throws {
        guard hash.count >= 5 else {
            throw ImageError(.badImageData, "a ThumbHash has at least 5 bytes, not \(hash.count)")
        }
        let header24 = Int(hash[0]) | Int(hash[1]) << 8 | Int(hash[2]) << 16
        let header16 = Int(hash[3]) | Int(hash[4]) << 8
        lightnessDC = Double(header24 & 63) / 63
        pDC = Double((header24 >> 6) & 63) / 31.5 - 1
        qDC = Double((header24 >> 12) & 63) / 31.5 - 1
        lightnessScale = Double((header24 >> 18) & 31) / 31
        hasAlpha = header24 >> 23 != 0
        pScale = Double((header16 >> 3) & 63) / 63
        qScale = Double((header16 >> 9) & 63) / 63
        isLandscape = header16 >> 15 != 0
        storedCount = header16 & 7
        guard storedCount > 0 else { throw ImageError(.badImageData, "not a ThumbHash: no lightness components") }
        if hasAlpha {
            guard hash.count >= 6 else { throw ImageError(.badImageData, "a ThumbHash with alpha has 6 bytes or more") }
            alphaDC = Double(hash[5] & 15) / 15
            alphaScale = Double(hash[5] >> 4) / 15
        } else {
            alphaDC = 1
            alphaScale = 0
        }
        self.hash = hash
        let nibbles = ThumbHashChannel.componentCount(columns: lightnessColumns, rows: lightnessRows)
            + 2 * ThumbHashChannel.componentCount(columns: 3, rows: 3)
            + (hasAlpha ? ThumbHashChannel.componentCount(columns: 5, rows: 5) : 0)
        guard hash.count >= firstComponentByte + (nibbles + 1) / 2 else {
            throw ImageError(.badImageData, "a ThumbHash of this header has \(firstComponentByte + (nibbles + 1) / 2) "
                             + "bytes, not \(hash.count)")
        }
    }

    /// The lightness components on the axis the header does not store (7, or 5 with alpha).
    var longSideCount: Int { hasAlpha ? 5 : 7 }
    var lightnessColumns: Int { max(3, isLandscape ? longSideCount : storedCount) }
    var lightnessRows: Int { max(3, isLandscape ? storedCount : longSideCount) }
    var firstComponentByte: Int { hasAlpha ? 6 : 5 }

    /// Width over height, from the lightness component counts (before the minimum of 3 applies).
    var aspectRatio: Double {
        isLandscape ? Double(longSideCount) / Double(storedCount) : Double(storedCount) / Double(longSideCount)
    }

    /// The four channels' varying components, each nibble mapped back to -1...1 and scaled; the colour
    /// differences 1.25 times, as the reference decoder boosts them to make up for their quantization.
    func channels() -> (l: ThumbHashChannel, p: ThumbHashChannel, q: ThumbHashChannel, a: ThumbHashChannel?) {
        var nibble = 0
        func read(columns: Int, rows: Int, scale: Double) -> ThumbHashChannel {
            var channel = ThumbHashChannel(columns: columns, rows: rows, components: [])
            for _ in 0..<ThumbHashChannel.componentCount(columns: columns, rows: rows) {
                let byte = hash[firstComponentByte + (nibble >> 1)]
                let value = (nibble & 1 == 0 ? byte : byte >> 4) & 15
                channel.components.append((Double(value) / 7.5 - 1) * scale)
                nibble += 1
            }
            return channel
        }
        let l = read(columns: lightnessColumns, rows: lightnessRows, scale: lightnessScale)
        let p = read(columns: 3, rows: 3, scale: pScale * 1.25)
        let q = read(columns: 3, rows: 3, scale: qScale * 1.25)
        return (l, p, q, hasAlpha ? read(columns: 5, rows: 5, scale: alphaScale) : nil)
    }
}
