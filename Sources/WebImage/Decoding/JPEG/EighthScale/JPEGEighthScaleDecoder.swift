import Foundation

/// Decodes at 1/8 scale the start of a progressive JPEG that a download stopped early (``JPEGPrefixScanner``):
/// its first scans, closed with an end-of-image marker. libjpeg, given the same bytes, allocates and zeroes every
/// block's 64 coefficients (36 MB for 12 MP) and decodes every scan in full; at 1/8 a block needs far less.
///
/// - A component decoded with libjpeg's 1×1 IDCT at 1/8 (luma, and every component of a file that is not
///   subsampled) is one sample a block: the dequantized DC over 8, centred on 128, as libjpeg computes it. Its AC
///   scans are skipped, not decoded.
/// - A component decoded with the 2×2 IDCT (the chroma of a 4:2:0 file) is four samples a block, each the mean of
///   a quarter of the block. Those means depend only on DC and the coefficients whose row and column are 0 or odd
///   (the even ones sum to zero over half a block), which its first AC scans carry: they are decoded, and each
///   coefficient added to the four means as it arrives (no coefficient buffer). A cut before those scans (the
///   early stop's usual one on 4:2:0) leaves the means to ``JPEGChromaPrediction``.
///
/// A whole progressive file that is not subsampled is read too (every component reads DC alone at 1/8): the
/// pixels are libjpeg's exactly, and its AC scans are only skipped. Anything else returns `nil`, and the caller
/// decodes as before with libjpeg: a whole subsampled file (a refinement of a 2×2 component's AC, which a cut
/// prefix never holds), arithmetic coding, other than 1 or 3 components or 8 bits, sampling factors that do not
/// divide the largest, an IDCT larger than 2×2 that needs AC, damaged or truncated entropy-coded data, or more
/// than ``JPEGPrefixScanner/maximumScans`` scans. It reads only what it was given and never writes outside the
/// buffers it sized, whatever the bytes say.
enum JPEGEighthScaleDecoder {
    struct Component {
        let id: UInt8
        let h: Int
        let v: Int
        let quantizationTable: Int
        /// libjpeg's IDCT size for this component at 1/8 (``JPEGScaledIDCT``): 1, 2, or more (DC only then).
        var idctSize = 1
        /// Blocks in the component's own grid (a scan of this component alone covers only these).
        var blocksWide = 0
        var blocksHigh = 0
        /// Blocks in the grid padded to whole MCUs (an interleaved scan covers these); the row stride of `dc`.
        var paddedWide = 0
        var dc: [Int16] = []
        /// For a 2×2 component, each block's four quarter means from its AC coefficients so far, in units of
        /// ``JPEGQuarterMeans/scale``.
        var quarters: [Int] = []
        /// The successive-approximation bit position its DC is known to; `nil` before its first scan.
        var knownBit: Int?
        /// Its quantization table (zigzag order), taken at its first scan (as libjpeg latches tables).
        var quantizer: [Int] = []
        /// Which AC coefficients (zigzag index) a first scan has brought.
        var receivedAC = [Bool](repeating: false, count: 64)
    }

    struct Frame {
        let width: Int
        let height: Int
        var components: [Component]
        let maxH: Int
        let maxV: Int
        var mcusWide: Int { (width + 8 * maxH - 1) / (8 * maxH) }
        var mcusHigh: Int { (height + 8 * maxV - 1) / (8 * maxV) }
    }

    /// The decoding state between markers.
    struct Tables {
        var frame: Frame?
        var dcTables = [JPEGHuffmanTable?](repeating: nil, count: 4)
        var acTables = [JPEGHuffmanTable?](repeating: nil, count: 4)
        /// Each quantization table, in zigzag order.
        var quantizers = [[Int]?](repeating: nil, count: 4)
        var restartInterval = 0
        var sawJFIF = false
        var adobeTransform: UInt8?
        var scans = 0
    }

    /// The image at 1/8 of `bytes`' size, or `nil` when these bytes are not the start this reads (see the type).
    static func decode(_ bytes: UnsafeRawBufferPointer) -> PixelBuffer? {
        // A prefix cut by a download's scanner was read there already (the chroma prediction needed its DC).
        guard let (frame, tables) = JPEGPrefixReads.take(readFrom: bytes) ?? read(bytes) else { return nil }
        return JPEGEighthScaleImage.pixels(frame, tables: tables)
    }

    /// The coefficients of `bytes` this reads, up to its end-of-image marker, or `nil` (see the type).
    static func read(_ bytes: UnsafeRawBufferPointer) -> (Frame, Tables)? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var tables = Tables()
        var position = 2
        while true {
            guard position + 1 < bytes.count, bytes[position] == 0xFF,
                  case .marker(let read) = JPEGSegments.read(bytes, at: position) else { return nil }
            let marker = read.marker, end = read.next
            if marker == 0xD9 {
                guard let frame = tables.frame else { return nil }
                return (frame, tables)
            }
            guard !JPEGSegments.standsAlone(marker) else { return nil }
            let segment = UnsafeRawBufferPointer(rebasing: bytes[read.payload])
            switch marker {
            case 0xC2:
                guard tables.frame == nil, let frame = readFrame(segment) else { return nil }
                tables.frame = frame
            case _ where JPEGSegments.startsFrame(marker):
                return nil
            case 0xCC, 0xDC, 0xDE, 0xDF:
                return nil
            case 0xC4:
                guard readHuffmanTables(segment, into: &tables) else { return nil }
            case 0xDB:
                guard readQuantizationTables(segment, into: &tables) else { return nil }
            case 0xDD:
                guard segment.count == 2 else { return nil }
                tables.restartInterval = Int(segment[0]) << 8 | Int(segment[1])
            case 0xE0 where segment.starts(with: Array("JFIF\0".utf8)):
                tables.sawJFIF = true
            case 0xEE where tables.adobeTransform == nil && segment.count >= 12
                && segment.starts(with: Array("Adobe".utf8)):
                tables.adobeTransform = segment[11]
            case 0xDA:
                // Before decoding anything, make sure no scan to the end refines a 2×2 component's AC: a whole
                // progressive file is libjpeg's, and finding that out costs a search for markers through the scans
                // before the first such refinement.
                guard let frame = tables.frame, tables.scans > 0 || isCutPrefix(bytes, from: position, frame: frame)
                else { return nil }
                tables.scans += 1
                guard tables.scans <= JPEGPrefixScanner.maximumScans,
                      let next = JPEGProgressiveScan.decode(header: segment, dataStart: end, in: bytes, tables: &tables)
                else {
                    return nil
                }
                position = next
                continue
            default:
                break
            }
            position = end
        }
    }

    /// Whether every scan from the one at `start` to the end-of-image marker is one this decoder takes: no AC
    /// refinement of a component with a 2×2 IDCT, and no AC at all for one with a larger IDCT.
    private static func isCutPrefix(_ bytes: UnsafeRawBufferPointer, from start: Int, frame: Frame) -> Bool {
        var position = start
        for _ in 0..<JPEGPrefixScanner.maximumScans {
            // Segments up to the next scan header (tables may come between scans).
            while true {
                guard position + 1 < bytes.count, bytes[position] == 0xFF else { return false }
                var markerIndex = position + 1
                while markerIndex < bytes.count, bytes[markerIndex] == 0xFF { markerIndex += 1 }
                guard markerIndex < bytes.count else { return false }
                if bytes[markerIndex] == 0xD9 { return true }
                guard markerIndex + 2 < bytes.count else { return false }
                let length = Int(bytes[markerIndex + 1]) << 8 | Int(bytes[markerIndex + 2])
                let end = markerIndex + 1 + length
                guard length >= 2, end <= bytes.count else { return false }
                if bytes[markerIndex] == 0xDA {
                    guard end > markerIndex + 3 else { return false }  // A scan header with no room for its count.
                    let count = Int(bytes[markerIndex + 3])
                    let spectral = markerIndex + 4 + 2 * count
                    guard count >= 1, spectral + 2 < end else { return false }
                    if bytes[spectral] != 0 {
                        // An AC scan has one component.
                        guard let component = frame.components.first(where: { $0.id == bytes[markerIndex + 4] })
                        else { return false }
                        let refines = bytes[spectral + 2] >> 4 != 0
                        if component.idctSize > 2 || (component.idctSize == 2 && refines) { return false }
                    }
                    var reader = JPEGBitReader(bytes, from: end)
                    guard let next = reader.endOfData() else { return false }
                    position = next
                    break
                }
                position = end
            }
        }
        return false
    }

    /// SOF2: 8-bit samples, 1 or 3 components whose sampling factors divide the largest ones.
    private static func readFrame(_ segment: UnsafeRawBufferPointer) -> Frame? {
        guard segment.count >= 6, segment[0] == 8 else { return nil }
        let height = Int(segment[1]) << 8 | Int(segment[2])
        let width = Int(segment[3]) << 8 | Int(segment[4])
        let count = Int(segment[5])
        guard count == 1 || count == 3, segment.count == 6 + 3 * count, width > 0, height > 0 else { return nil }
        // Its planes are sized from the header before any data is read: a frame past the default pixel limit
        // (which a caller with looser limits may allow) goes to libjpeg instead.
        guard width * height <= DecodeLimits.default.maxPixels else { return nil }
        var components: [Component] = []
        for index in 0..<count {
            let base = 6 + 3 * index
            let h = Int(segment[base + 1] >> 4), v = Int(segment[base + 1] & 0x0F), table = Int(segment[base + 2])
            guard (1...4).contains(h), (1...4).contains(v), table < 4,
                  !components.contains(where: { $0.id == segment[base] }) else { return nil }
            components.append(Component(id: segment[base], h: h, v: v, quantizationTable: table))
        }
        let maxH = components.map(\.h).max() ?? 1, maxV = components.map(\.v).max() ?? 1
        guard components.allSatisfy({ maxH % $0.h == 0 && maxV % $0.v == 0 }) else { return nil }
        var frame = Frame(width: width, height: height, components: components, maxH: maxH, maxV: maxV)
        for index in frame.components.indices {
            let h = frame.components[index].h, v = frame.components[index].v
            frame.components[index].idctSize = JPEGScaledIDCT.size(eighths: 1, h: h, v: v, maxH: maxH, maxV: maxV)
            frame.components[index].blocksWide = ((width * h + maxH - 1) / maxH + 7) / 8
            frame.components[index].blocksHigh = ((height * v + maxV - 1) / maxV + 7) / 8
            frame.components[index].paddedWide = frame.mcusWide * h
            frame.components[index].dc = [Int16](repeating: 0, count: frame.mcusWide * h * frame.mcusHigh * v)
        }
        return frame
    }

    /// DHT: DC and AC tables.
    private static func readHuffmanTables(_ segment: UnsafeRawBufferPointer, into tables: inout Tables) -> Bool {
        var offset = 0
        while offset < segment.count {
            guard offset + 17 <= segment.count else { return false }
            let kind = segment[offset] >> 4, slot = Int(segment[offset] & 0x0F)
            guard kind <= 1, slot < 4 else { return false }
            let counts = UnsafeRawBufferPointer(rebasing: segment[(offset + 1)..<(offset + 17)])
            let total = counts.reduce(0) { $0 + Int($1) }
            guard offset + 17 + total <= segment.count else { return false }
            let symbols = UnsafeRawBufferPointer(rebasing: segment[(offset + 17)..<(offset + 17 + total)])
            guard let table = JPEGHuffmanTable(counts: counts, symbols: symbols) else { return false }
            if kind == 0 { tables.dcTables[slot] = table } else { tables.acTables[slot] = table }
            offset += 17 + total
        }
        return true
    }

    /// DQT: 64 entries of 8 or 16 bits, in zigzag order.
    private static func readQuantizationTables(_ segment: UnsafeRawBufferPointer, into tables: inout Tables) -> Bool {
        var offset = 0
        while offset < segment.count {
            let precision = segment[offset] >> 4, slot = Int(segment[offset] & 0x0F)
            guard precision <= 1, slot < 4 else { return false }
            let size = precision == 0 ? 64 : 128
            guard offset + 1 + size <= segment.count else { return false }
            tables.quantizers[slot] = (0..<64).map { index in
                precision == 0 ? Int(segment[offset + 1 + index])
                    : Int(segment[offset + 1 + 2 * index]) << 8 | Int(segment[offset + 2 + 2 * index])
            }
            offset += 1 + size
        }
        return true
    }
}
