import Foundation

/// A minimal little-endian TIFF written byte by byte: one uncompressed strip of interleaved 8 or 16-bit samples,
/// with the tags a colour test needs (an ICC profile, CMYK inks, unassociated alpha). Written here rather than by a
/// tool so that each test states exactly the samples and the profile it reads back.
struct TIFFTestFile {
    enum Photometric: UInt16 {
        case minIsBlack = 1
        case rgb = 2
        case separated = 5
    }

    var width: Int
    var height: Int
    var photometric: Photometric
    var bitsPerSample: Int
    var samplesPerPixel: Int
    /// Extra sample 338 = 2 (unassociated alpha) for the last sample.
    var unassociatedAlpha = false
    var icc: Data?
    /// Samples in order, each below 1 << bitsPerSample.
    var samples: [UInt16]

    var data: Data {
        var pixelData: [UInt8] = []
        for sample in samples {
            if bitsPerSample == 8 { pixelData.append(UInt8(sample)) } else { pixelData += [UInt8(sample & 0xFF), UInt8(sample >> 8)] }
        }
        var entries: [(tag: UInt16, type: UInt16, count: UInt32, value: [UInt8])] = []
        func short(_ values: [UInt16]) -> [UInt8] { values.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }
        func long(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(value >> ($0 * 8) & 0xFF) } }
        entries.append((256, 4, 1, long(width)))
        entries.append((257, 4, 1, long(height)))
        entries.append((258, 3, UInt32(samplesPerPixel), short(Array(repeating: UInt16(bitsPerSample), count: samplesPerPixel))))
        entries.append((259, 3, 1, short([1])))
        entries.append((262, 3, 1, short([photometric.rawValue])))
        entries.append((273, 4, 1, []))  // the strip's offset, filled below
        entries.append((277, 3, 1, short([UInt16(samplesPerPixel)])))
        entries.append((278, 4, 1, long(height)))
        entries.append((279, 4, 1, long(pixelData.count)))
        entries.append((284, 3, 1, short([1])))
        if photometric == .separated { entries.append((332, 3, 1, short([1]))) }
        if unassociatedAlpha { entries.append((338, 3, 1, short([2]))) }
        if let icc { entries.append((34675, 7, UInt32(icc.count), Array(icc))) }

        let directorySize = 2 + entries.count * 12 + 4
        var outside: [UInt8] = []  // values longer than four bytes, after the directory
        var stripOffset = 0
        var directory: [UInt8] = short([UInt16(entries.count)])
        for entry in entries {
            directory += short([entry.tag, entry.type]) + long(Int(entry.count))
            if entry.tag == 273 {
                stripOffset = directory.count
                directory += long(0)
            } else if entry.value.count <= 4 {
                directory += entry.value + Array(repeating: 0, count: 4 - entry.value.count)
            } else {
                directory += long(8 + directorySize + outside.count)
                outside += entry.value
                if outside.count % 2 == 1 { outside.append(0) }
            }
        }
        directory += long(0)
        let pixelsAt = 8 + directorySize + outside.count
        directory.replaceSubrange(stripOffset..<(stripOffset + 4), with: long(pixelsAt))
        return Data([0x49, 0x49, 42, 0] + long(8) + directory + outside + pixelData)
    }
}
