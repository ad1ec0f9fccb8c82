import WebImage

/// The smart gravity (`g:sm`): of all the places a crop can take along the axis it can move, the one holding the
/// most detail, measured as the sum of luminance differences between neighbouring pixels (edges and texture, which
/// is where subjects are; flat sky and backdrops have none).
///
/// The crop moves along one axis at most: after a `fill`, one side of the crop already equals the image's. A crop
/// smaller on both sides (the `crop` option) is placed along x first, then along y inside that column band.
enum SmartCrop {
    /// The rectangle of `crop` in `pixels` with the most detail.
    static func rect(of crop: PixelSize, in pixels: PixelBuffer) -> PixelRect {
        let (columns, rows) = detailProfiles(pixels)
        return PixelRect(x: bestStart(of: crop.width, in: columns), y: bestStart(of: crop.height, in: rows),
                         width: crop.width, height: crop.height)
    }

    /// The detail of each column and of each row: the absolute luminance differences to the right and downward
    /// neighbours, summed over the column or row.
    static func detailProfiles(_ pixels: PixelBuffer) -> (columns: [Int], rows: [Int]) {
        var columns = [Int](repeating: 0, count: pixels.width), rows = [Int](repeating: 0, count: pixels.height)
        pixels.withUnsafeBytes { bytes in
            let rowBytes = pixels.bytesPerRow
            func luminance(_ offset: Int) -> Int {
                // Rec. 601 weights in integers, scaled by alpha: transparent pixels carry no detail.
                let value = 299 * Int(bytes[offset]) + 587 * Int(bytes[offset + 1]) + 114 * Int(bytes[offset + 2])
                return value * Int(bytes[offset + 3]) / 255_000
            }
            for y in 0..<pixels.height {
                var rowDetail = 0
                for x in 0..<pixels.width {
                    let offset = y * rowBytes + x * 4
                    let here = luminance(offset)
                    var detail = 0
                    if x + 1 < pixels.width { detail += abs(luminance(offset + 4) - here) }
                    if y + 1 < pixels.height { detail += abs(luminance(offset + rowBytes) - here) }
                    columns[x] += detail
                    rowDetail += detail
                }
                rows[y] = rowDetail
            }
        }
        return (columns, rows)
    }

    /// The start of the window of `length` with the largest sum in `profile`; the earliest of equal ones, and 0
    /// when the window covers everything.
    static func bestStart(of length: Int, in profile: [Int]) -> Int {
        guard length < profile.count else { return 0 }
        var sum = profile[0..<length].reduce(0, +)
        var best = sum, bestStart = 0
        for start in 1...(profile.count - length) {
            sum += profile[start + length - 1] - profile[start - 1]
            if sum > best {
                best = sum
                bestStart = start
            }
        }
        return bestStart
    }
}
