/// One scan of a progressive JPEG's start (ITU T.81, G.1.2), read into ``JPEGEighthScaleDecoder``'s frame: a DC
/// scan (the first, Huffman-coded differences from the previous block's DC, or a refinement, one more bit of
/// each), or an AC scan of one component, decoded when the component's 2×2 IDCT needs it and skipped otherwise.
enum JPEGProgressiveScan {
    private struct Header {
        let members: [Int]
        let dcTables: [JPEGHuffmanTable?]
        let acTable: JPEGHuffmanTable?
        let ss: Int
        let se: Int
        let ah: Int
        let al: Int
    }

    /// Decodes the scan whose header is `header` and whose data starts at `dataStart` into `tables`' frame;
    /// returns the offset of the marker after its data, or `nil` when the scan is not one this decoder takes, or
    /// its data is damaged or cut short.
    static func decode(header bytesOfHeader: UnsafeRawBufferPointer, dataStart: Int, in bytes: UnsafeRawBufferPointer,
                       tables: inout JPEGEighthScaleDecoder.Tables) -> Int?
    {
        guard var frame = tables.frame, let header = readHeader(bytesOfHeader, frame: frame, tables: tables) else {
            return nil
        }
        tables.frame = nil  // Until the scan is in: the frame's planes must have one owner while they are written.
        var reader = JPEGBitReader(bytes, from: dataStart)
        if header.ss == 0 {
            guard startDC(header, frame: &frame, tables: tables),
                  JPEGDCScanReader.read(header.members, tables: header.dcTables, refining: header.ah != 0,
                                        al: header.al, frame: &frame, restartInterval: tables.restartInterval,
                                        reader: &reader) else { return nil }
        } else {
            let member = header.members[0]
            let component = frame.components[member]
            guard component.knownBit != nil else { return nil }  // AC before DC: libjpeg warns; left to it
            if component.idctSize == 2 {
                guard header.ah == 0, let table = header.acTable,
                      (header.ss...header.se).allSatisfy({ !component.receivedAC[$0] }) else { return nil }
                for index in header.ss...header.se { frame.components[member].receivedAC[index] = true }
                guard JPEGACScanReader.read(member, table: table, ss: header.ss, se: header.se, al: header.al,
                                            frame: &frame, restartInterval: tables.restartInterval,
                                            reader: &reader) else { return nil }
            } else if component.idctSize > 2 {
                return nil
            }
            // A 1×1 component's AC is never read at 1/8: its data is skipped.
        }
        guard !reader.ranPastMarker, let end = reader.endOfData() else { return nil }
        tables.frame = frame
        return end
    }

    /// The scan header, checked as libjpeg checks a progression: a DC band (Ss = Se = 0) of any components or an
    /// AC band (1 ≤ Ss ≤ Se ≤ 63) of one; a refinement lowers the precision by exactly one bit; Al ≤ 13.
    private static func readHeader(_ header: UnsafeRawBufferPointer, frame: JPEGEighthScaleDecoder.Frame,
                                   tables: JPEGEighthScaleDecoder.Tables) -> Header?
    {
        guard header.count >= 1 else { return nil }
        let count = Int(header[0])
        guard count >= 1, count <= frame.components.count, header.count == 4 + 2 * count else { return nil }
        var members: [Int] = []
        var dcTables: [JPEGHuffmanTable?] = []
        var acTable: JPEGHuffmanTable?
        for index in 0..<count {
            guard let member = frame.components.firstIndex(where: { $0.id == header[1 + 2 * index] }),
                  !members.contains(member) else { return nil }
            let dcSlot = Int(header[2 + 2 * index] >> 4), acSlot = Int(header[2 + 2 * index] & 0x0F)
            guard dcSlot < 4, acSlot < 4 else { return nil }  // Four tables of each kind exist; a byte says up to 15.
            members.append(member)
            dcTables.append(tables.dcTables[dcSlot])
            acTable = tables.acTables[acSlot]
        }
        let ss = Int(header[1 + 2 * count]), se = Int(header[2 + 2 * count])
        let ah = Int(header[3 + 2 * count] >> 4), al = Int(header[3 + 2 * count] & 0x0F)
        let valid = ss == 0 ? se == 0 : (count == 1 && ss <= se && se <= 63)
        guard valid, ah == 0 || al == ah - 1, al <= 13 else { return nil }
        return Header(members: members, dcTables: dcTables, acTable: acTable, ss: ss, se: se, ah: ah, al: al)
    }

    /// Checks a DC scan against what each component has had, and latches the quantization table at a
    /// component's first scan.
    private static func startDC(_ header: Header, frame: inout JPEGEighthScaleDecoder.Frame,
                                tables: JPEGEighthScaleDecoder.Tables) -> Bool
    {
        for (position, member) in header.members.enumerated() {
            if header.ah != 0 {
                guard frame.components[member].knownBit == header.ah else { return false }
            } else {
                guard frame.components[member].knownBit == nil, header.dcTables[position] != nil,
                      let quantizer = tables.quantizers[frame.components[member].quantizationTable] else { return false }
                frame.components[member].quantizer = quantizer
            }
            frame.components[member].knownBit = header.al
        }
        return true
    }

    /// A `size`-bit magnitude category's value (ITU T.81, F.2.2.1): the high half positive, the low half negative.
    @inline(__always)
    static func extend(_ value: Int, size: Int) -> Int {
        size == 0 ? 0 : (value < 1 << (size - 1) ? value - (1 << size) + 1 : value)
    }
}
