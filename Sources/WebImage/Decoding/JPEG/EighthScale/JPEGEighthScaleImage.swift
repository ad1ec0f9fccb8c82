import Foundation

/// Turns the coefficients read from a progressive JPEG's start into its 1/8-scale image: one sample a block for
/// a component with a 1×1 IDCT (the dequantized DC over 8, centred on 128, as libjpeg computes it), four for one
/// with a 2×2 IDCT (``JPEGQuarterMeans`` from its AC, or ``JPEGChromaPrediction`` when only its DC came), then
/// RGBA.
enum JPEGEighthScaleImage {
    /// The pixels, or `nil` when a component never got its DC scan.
    static func pixels(_ frame: JPEGEighthScaleDecoder.Frame, tables: JPEGEighthScaleDecoder.Tables) -> PixelBuffer? {
        guard frame.components.allSatisfy({ $0.knownBit != nil && !$0.quantizer.isEmpty }) else { return nil }
        let width = (frame.width + 7) / 8, height = (frame.height + 7) / 8
        let predictsChroma = JPEGChromaPrediction.applies(toSampling: frame.components.map { ($0.h, $0.v) })
        let planes = frame.components.map { component in
            // A 4:2:0 chroma plane whose AC never came (the cut after the DC scan) is predicted from luma.
            predictsChroma && component.idctSize == 2 && component.quarters.isEmpty
                ? JPEGChromaPrediction.samples(component, luma: frame.components[0]) : samples(component)
        }
        let isRGB = frame.components.count == 3 && storesRGB(frame, tables: tables)
        let converter = YCbCrToRGB.shared
        // Where each output column reads each plane's row (x * step / maxH), worked out once rather than divided
        // per pixel: `columns[component * width + x]`.
        var columns: [Int] = []
        columns.reserveCapacity(width * planes.count)
        for (component, plane) in zip(frame.components, planes) {
            let step = component.h * plane.perBlock
            columns += (0..<width).map { $0 * step / frame.maxH }
        }
        // Each plane's first sample row for output row y.
        let rowStarts = zip(frame.components, planes).map { component, plane in
            (0..<height).map { y in (y * component.v * plane.perBlock / frame.maxV) * plane.stride }
        }
        // The loop below reads without bounds checks: every plane must hold its last row's last column.
        for index in planes.indices {
            guard let lastRow = rowStarts[index].last,
                  let lastColumn = columns[(index * width)..<((index + 1) * width)].last,
                  lastRow + lastColumn < planes[index].values.count else { return nil }
        }
        let none: [UInt8] = []
        return try? PixelBuffer(width: width, height: height) { destination in
            let output = destination.bindMemory(to: UInt8.self).baseAddress!
            planes[0].values.withUnsafeBufferPointer { first in
                (planes.count == 3 ? planes[1].values : none).withUnsafeBufferPointer { second in
                    (planes.count == 3 ? planes[2].values : none).withUnsafeBufferPointer { third in
                        columns.withUnsafeBufferPointer { columns in
                            for y in 0..<height {
                                let row = output + y * width * 4
                                let one = first.baseAddress! + rowStarts[0][y]
                                if planes.count == 1 {
                                    for x in 0..<width {
                                        let gray = one[columns[x]]
                                        row[x * 4] = gray
                                        row[x * 4 + 1] = gray
                                        row[x * 4 + 2] = gray
                                        row[x * 4 + 3] = 255
                                    }
                                    continue
                                }
                                let two = second.baseAddress! + rowStarts[1][y]
                                let three = third.baseAddress! + rowStarts[2][y]
                                for x in 0..<width {
                                    let a = one[columns[x]], b = two[columns[width + x]]
                                    let c = three[columns[2 * width + x]]
                                    let rgb = isRGB ? (a, b, c) : converter.convert(a, b, c)
                                    row[x * 4] = rgb.0
                                    row[x * 4 + 1] = rgb.1
                                    row[x * 4 + 2] = rgb.2
                                    row[x * 4 + 3] = 255
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// A component's samples over its padded block grid: `perBlock` samples along each side of a block.
    static func samples(_ component: JPEGEighthScaleDecoder.Component) -> (values: [UInt8], stride: Int, perBlock: Int) {
        let dcQuantizer = component.quantizer[0]
        guard component.idctSize == 2 else {
            let values = component.dc.map { UInt8(clamping: (Int($0) * dcQuantizer + 4) >> 3 + 128) }
            return (values, component.paddedWide, 1)
        }
        let blocksHigh = component.dc.count / max(component.paddedWide, 1)
        let dcWeight = JPEGQuarterMeans.weights[0], half = JPEGQuarterMeans.half, shift = JPEGQuarterMeans.shift
        let stride = component.paddedWide * 2
        var values = [UInt8](repeating: 0, count: component.dc.count * 4)
        for blockY in 0..<blocksHigh {
            for blockX in 0..<component.paddedWide {
                let block = blockY * component.paddedWide + blockX
                let dc = Int(component.dc[block]) * dcQuantizer * dcWeight
                for quarter in 0..<4 {
                    let ac = component.quarters.isEmpty ? 0 : component.quarters[block * 4 + quarter]
                    let mean = (dc &+ ac &+ half) >> shift
                    values[(blockY * 2 + quarter / 2) * stride + blockX * 2 + quarter % 2] = UInt8(clamping: mean + 128)
                }
            }
        }
        return (values, stride, 2)
    }

    /// Whether three components hold R, G and B rather than YCbCr, by libjpeg's rule: a JFIF file is YCbCr; an
    /// Adobe segment says so itself (transform 0 is RGB); otherwise component ids 'R', 'G', 'B' mean RGB.
    static func storesRGB(_ frame: JPEGEighthScaleDecoder.Frame, tables: JPEGEighthScaleDecoder.Tables) -> Bool {
        if tables.sawJFIF { return false }
        if let transform = tables.adobeTransform { return transform == 0 }
        return frame.components.map(\.id) == [0x52, 0x47, 0x42]
    }
}

/// The means of the four quarters of an 8×8 block, from its DCT coefficients: what libjpeg's 2×2 IDCT computes.
///
/// With the JPEG IDCT f(x, y) = ¼ Σ C(u) C(v) F(u, v) cos((2x+1)uπ/16) cos((2y+1)vπ/16), the mean over a quarter
/// is Σ F(u, v) w(u, qx) w(v, qy), where w(u, q) = C(u)/2 · the mean of cos((2x+1)uπ/16) over x in that half.
/// For even u > 0 the half's cosines cancel (w = 0): only rows and columns 0, 1, 3, 5 and 7 count.
enum JPEGQuarterMeans {
    /// The weights' fixed-point precision.
    static let shift = 13
    static let half = 1 << (shift - 1)

    /// For each zigzag index, four weights of that coefficient, in quarters (top-left, top-right, bottom-left,
    /// bottom-right), scaled by 2^shift: `weights[zigzag * 4 + quarter]`.
    static let weights: [Int] = (0..<256).map { entry in
        let natural = JPEGScaledIDCT.naturalOrder[entry / 4], quarter = entry % 4
        let u = natural % 8, v = natural / 8
        return Int((halfWeight(u, quarter % 2) * halfWeight(v, quarter / 2) * Double(1 << shift)).rounded())
    }

    private static func halfWeight(_ frequency: Int, _ half: Int) -> Double {
        let scale = frequency == 0 ? 1 / 2.0.squareRoot() : 1
        let sum = (4 * half..<4 * half + 4).reduce(0.0) { total, x in
            total + cos(Double(2 * x + 1) * Double(frequency) * .pi / 16)
        }
        return scale / 2 * sum / 4
    }
}

/// JFIF's YCbCr to RGB conversion in 16-bit fixed point, rounded as libjpeg rounds it (jdcolor.c's constants).
struct YCbCrToRGB: Sendable {
    /// The tables, built once; callers keep a copy in a local for their loops.
    static let shared = YCbCrToRGB()

    private let redFromCr: [Int]
    private let blueFromCb: [Int]
    private let greenFromCb: [Int]
    private let greenFromCr: [Int]

    private init() {
        let fixed = { (value: Double) in Int(value * 65_536 + 0.5) }
        let half = 1 << 15
        redFromCr = (0..<256).map { (fixed(1.40200) * ($0 - 128) + half) >> 16 }
        blueFromCb = (0..<256).map { (fixed(1.77200) * ($0 - 128) + half) >> 16 }
        greenFromCb = (0..<256).map { -fixed(0.34414) * ($0 - 128) + half }
        greenFromCr = (0..<256).map { -fixed(0.71414) * ($0 - 128) }
    }

    @inline(__always)
    func convert(_ y: UInt8, _ cb: UInt8, _ cr: UInt8) -> (UInt8, UInt8, UInt8) {
        let luma = Int(y)
        let green = luma + (greenFromCb[Int(cb)] + greenFromCr[Int(cr)]) >> 16
        return (UInt8(clamping: luma + redFromCr[Int(cr)]), UInt8(clamping: green),
                UInt8(clamping: luma + blueFromCb[Int(cb)]))
    }
}
