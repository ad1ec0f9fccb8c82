/// Which DCT coefficients libjpeg-turbo reads for one component when it decodes at a reduced DCT scale.
///
/// libjpeg picks one inverse-DCT size per component (jdmaster.c, `jpeg_core_output_dimensions`): it starts at
/// the frame's scale in eighths and doubles while the size is below 8 and the component's sampling factors
/// divide the frame's largest ones with room for a doubled block. So at 1/8 on 4:2:0 the luma blocks use a
/// 1×1 IDCT (the DC coefficient only) but the half-resolution chroma blocks a 2×2 IDCT, which reads AC
/// coefficients too: DC alone is not all a 1/8 decode of a subsampled file reads.
enum JPEGScaledIDCT {
    /// The IDCT size (1, 2, 4 or 8) libjpeg uses for a component with sampling factors `h`×`v` in a frame whose
    /// largest factors are `maxH`×`maxV`, at a scale of `eighths`/8.
    static func size(eighths: Int, h: Int, v: Int, maxH: Int, maxV: Int) -> Int {
        var size = eighths
        while size < 8, (maxH * eighths) % (h * size * 2) == 0, (maxV * eighths) % (v * size * 2) == 0 {
            size *= 2
        }
        return size
    }

    /// The coefficients, by zigzag index, that the IDCT of `size` reads (jidctred.c and jidctint.c): the
    /// 1×1 reads DC; the 2×2 reads rows and columns 0, 1, 3, 5 and 7; the 4×4 every row and column but 4; the
    /// 8×8 everything.
    static func coefficients(readBy size: Int) -> [Int] {
        let used: Set<Int> = switch size {
        case 1: [0]
        case 2: [0, 1, 3, 5, 7]
        case 4: [0, 1, 2, 3, 5, 6, 7]
        default: Set(0..<8)
        }
        return (0..<64).filter { index in
            let natural = naturalOrder[index]
            return used.contains(natural / 8) && used.contains(natural % 8)
        }
    }

    /// Zigzag index → natural (row-major) position in the 8×8 block (ITU T.81, figure A.6).
    static let naturalOrder: [Int] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
        12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
        58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ]
}
