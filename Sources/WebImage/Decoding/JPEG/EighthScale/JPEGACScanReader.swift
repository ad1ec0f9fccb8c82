/// The entropy-coded data of a first AC scan of one component (ITU T.81, G.1.2.2), for a component decoded with
/// a 2×2 IDCT: each coefficient is added to its block's four quarter means as it is read.
enum JPEGACScanReader {
    /// Reads coefficients `ss`…`se` of every block of component `member`; `false` when the data is damaged.
    static func read(_ member: Int, table: JPEGHuffmanTable, ss: Int, se: Int, al: Int,
                     frame: inout JPEGEighthScaleDecoder.Frame, restartInterval: Int,
                     reader: inout JPEGBitReader) -> Bool
    {
        // The means leave the frame while they are written, so that they are uniquely referenced (no copy).
        var quarters = frame.components[member].quarters
        frame.components[member].quarters = []
        let component = frame.components[member]
        if quarters.isEmpty { quarters = [Int](repeating: 0, count: component.dc.count * 4) }
        let weights = JPEGQuarterMeans.weights
        let quantizer = component.quantizer
        var restart = JPEGRestarts(interval: restartInterval)
        var endOfBandRun = 0
        for block in 0..<(component.blocksWide * component.blocksHigh) {
            guard restart.beforeUnit(&reader) else { return false }
            if restart.justRestarted { endOfBandRun = 0 }
            if endOfBandRun > 0 {
                endOfBandRun -= 1
                continue
            }
            let base = ((block / component.blocksWide) * component.paddedWide + block % component.blocksWide) * 4
            var index = ss
            while index <= se {
                guard let symbol = table.decode(&reader) else { return false }
                let run = Int(symbol >> 4), size = Int(symbol & 0x0F)
                if size == 0 {
                    if run < 15 {
                        // End of band here and in the next 2^run − 1 + (run extra bits) blocks.
                        endOfBandRun = (1 << run) - 1 + reader.bits(run)
                        break
                    }
                    index += 16  // Sixteen zeros.
                    continue
                }
                index += run
                guard index <= se, size <= 14 else { return false }
                let value = JPEGProgressiveScan.extend(reader.bits(size), size: size) << al
                let dequantized = value &* quantizer[index]
                for quarter in 0..<4 {
                    quarters[base + quarter] &+= dequantized &* weights[index * 4 + quarter]
                }
                index += 1
            }
        }
        frame.components[member].quarters = quarters
        return true
    }
}
