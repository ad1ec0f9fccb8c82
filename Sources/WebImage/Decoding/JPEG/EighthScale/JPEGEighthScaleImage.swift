import Foundation

/// Turns the coefficients read from a progressive JPEG's start into its 1/8-scale image: one sample a block for
/// a component with a 1×1 IDCT (the dequantized DC over 8, centred on 128, as libjpeg computes it), four for one
/// with a 2×2 IDCT (``JPEGQuarterMeans``), then RGBA.
enum JPEGEighthScaleImage {
    /// The pixels, or `nil` when a component never got its DC scan.
    static func pixels(_ frame: JPEGEighthScaleDecoder.Frame, tables: JPEGEighthScaleDecoder.Tables) -> PixelBuffer? {
        guard frame.components.allSatisfy({ $0.knownBit != nil && !$0.quantizer.isEmpty }) else { return nil }
        let width = (frame.width + 7) / 8, height = (frame.height + 7) / 8
        let planes = frame.components.map(samples)
        let isRGB = frame.components.count == 3 && storesRGB(frame, tables: tables)
        return try? PixelBuffer(width: width, height: height) { destination in
            var offset = 0
            for y in 0..<height {
                // The sample row and the column step of each component for this output row.
                let rows = zip(frame.components, planes).map { component, plane in
                    (y * component.v * plane.perBlock / frame.maxV) * plane.stride
                }
                for x in 0..<width {
                    func sample(_ index: Int) -> UInt8 {
                        let component = frame.components[index]
                        return planes[index].values[rows[index] + x * component.h * planes[index].perBlock / frame.maxH]
                    }
                    let first = sample(0)
                    let rgb: (UInt8, UInt8, UInt8)
                    if frame.components.count == 1 {
                        rgb = (first, first, first)
                    } else if isRGB {
                        rgb = (first, sample(1), sample(2))
                    } else {
                        rgb = YCbCrToRGB.convert(first, sample(1), sample(2))
                    }
                    destination[offset] = rgb.0
                    destination[offset + 1] = rgb.1
                    destination[offset + 2] = rgb.2
                    destination[offset + 3] = 255
                    offset += 4
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
        let stride = component.paddedWide * 2
        var values = [UInt8](repeating: 0, count: component.dc.count * 4)
        for blockY in 0..<blocksHigh {
            for blockX in 0..<component.paddedWide {
                let block = blockY * component.paddedWide + blockX
                let dc = Int(component.dc[block]) * dcQuantizer * JPEGQuarterMeans.weights[0][0]
                for quarter in 0..<4 {
                    let ac = component.quarters.isEmpty ? 0 : component.quarters[block * 4 + quarter]
                    let mean = (dc &+ ac &+ JPEGQuarterMeans.half) >> JPEGQuarterMeans.shift
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

    /// For each zigzag index, the weight of that coefficient in quarters (top-left, top-right, bottom-left,
    /// bottom-right), scaled by 2^shift.
    static let weights: [[Int]] = (0..<64).map { zigzag in
        let natural = JPEGScaledIDCT.naturalOrder[zigzag]
        let u = natural % 8, v = natural / 8
        return (0..<4).map { quarter in
            Int((halfWeight(u, quarter % 2) * halfWeight(v, quarter / 2) * Double(1 << shift)).rounded())
        }
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
enum YCbCrToRGB {
    private static let scale = 1 << 16
    private static func fixed(_ value: Double) -> Int { Int(value * Double(scale) + 0.5) }
    private static let half = 1 << 15
    private static let redFromCr = (0..<256).map { (fixed(1.40200) * ($0 - 128) + half) >> 16 }
    private static let blueFromCb = (0..<256).map { (fixed(1.77200) * ($0 - 128) + half) >> 16 }
    private static let greenFromCb = (0..<256).map { -fixed(0.34414) * ($0 - 128) + half }
    private static let greenFromCr = (0..<256).map { -fixed(0.71414) * ($0 - 128) }

    @inline(__always)
    static func convert(_ y: UInt8, _ cb: UInt8, _ cr: UInt8) -> (UInt8, UInt8, UInt8) {
        let luma = Int(y)
        let green = luma + (greenFromCb[Int(cb)] + greenFromCr[Int(cr)]) >> 16
        return (UInt8(clamping: luma + redFromCr[Int(cr)]), UInt8(clamping: green),
                UInt8(clamping: luma + blueFromCb[Int(cb)]))
    }
}
