import Testing
@testable import WebImage

/// ``GIFLZWDecoder`` against streams from a reference encoder: every code path (literals, table strings, the
/// string being defined, widening, clears, a full table kept) gives back the indices exactly, and damaged streams
/// are refused with `badImageData`.
@Suite("GIF LZW decoder")
struct GIFLZWDecoderTests {
    /// Decodes `subBlocks` (compressed data in sub-blocks, as a GIF stores it) into `count` indices.
    private static func decode(_ subBlocks: [UInt8], minimumCodeSize: Int, count: Int) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0xEE, count: count)
        try subBlocks.withUnsafeBytes { input in
            try pixels.withUnsafeMutableBufferPointer {
                try GIFLZWDecoder.decode(subBlocks: input, minimumCodeSize: minimumCodeSize, into: $0)
            }
        }
        return pixels
    }

    /// Indices from a fixed pseudo-random sequence with runs, so strings of many lengths repeat.
    private static func indices(count: Int, colors: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        var result: [UInt8] = []
        result.reserveCapacity(count)
        while result.count < count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let value = UInt8(Int(state >> 33) % colors)
            let run = Int(state >> 59) % 6 + 1
            result.append(contentsOf: repeatElement(value, count: min(run, count - result.count)))
        }
        return result
    }

    @Test("round trips at every minimum code size", arguments: 1...8)
    func roundTrip(minimumCodeSize: Int) throws {
        let original = Self.indices(count: 60_000, colors: 1 << minimumCodeSize, seed: UInt64(minimumCodeSize))
        let compressed = GIFLZWTestEncoder(minimumCodeSize: minimumCodeSize).encode(original)
        #expect(try Self.decode(compressed, minimumCodeSize: minimumCodeSize, count: original.count) == original)
    }

    @Test("a table kept full to the end (deferred clear) decodes like a cleared one")
    func deferredClear() throws {
        let original = Self.indices(count: 200_000, colors: 256, seed: 7)
        var encoder = GIFLZWTestEncoder(minimumCodeSize: 8)
        encoder.clearWhenFull = false
        let codes = encoder.codes(for: original)
        #expect(codes.count > 4096, "the table must fill")
        #expect(codes.dropFirst().filter { $0.code == 256 }.isEmpty)
        let compressed = GIFLZWTestEncoder.subBlocks(GIFLZWTestEncoder.pack(codes))
        #expect(try Self.decode(compressed, minimumCodeSize: 8, count: original.count) == original)
    }

    @Test("codes that straddle sub-blocks of any size", arguments: [1, 2, 7, 8, 9, 64, 255])
    func subBlockSizes(blockSize: Int) throws {
        let original = Self.indices(count: 20_000, colors: 64, seed: UInt64(blockSize))
        let compressed = GIFLZWTestEncoder(minimumCodeSize: 6).encode(original, blockSize: blockSize)
        #expect(try Self.decode(compressed, minimumCodeSize: 6, count: original.count) == original)
    }

    @Test("the terminator ends the data even when bytes follow it")
    func terminatorEndsTheData() throws {
        let original = Self.indices(count: 3_000, colors: 16, seed: 5)
        let packed = GIFLZWTestEncoder.pack(GIFLZWTestEncoder(minimumCodeSize: 4).codes(for: original))
        // The first half in sub-blocks and their terminator, then the rest as if it were more data.
        let half = packed.count / 2
        let cut = GIFLZWTestEncoder.subBlocks(Array(packed[..<half]))
            + GIFLZWTestEncoder.subBlocks(Array(packed[half...]))
        #expect { try Self.decode(cut, minimumCodeSize: 4, count: original.count) } throws: {
            ($0 as? ImageError)?.message.contains("ends before its last pixel") == true
        }
    }

    @Test("one colour repeated makes every code the string being defined, and long strings")
    func oneColour() throws {
        let original = [UInt8](repeating: 3, count: 100_000)
        let compressed = GIFLZWTestEncoder(minimumCodeSize: 2).encode(original)
        #expect(compressed.count < 2_000)
        #expect(try Self.decode(compressed, minimumCodeSize: 2, count: original.count) == original)
    }

    @Test("asking for fewer pixels than the data holds gives the first ones")
    func fewerPixels() throws {
        let original = Self.indices(count: 10_000, colors: 16, seed: 3)
        let compressed = GIFLZWTestEncoder(minimumCodeSize: 4).encode(original)
        for count in [1, 7, 8, 9, 4_321, 9_999] {
            #expect(try Self.decode(compressed, minimumCodeSize: 4, count: count) == Array(original.prefix(count)))
        }
    }

    @Test("data cut before the last pixel is refused")
    func cutData() throws {
        let original = Self.indices(count: 5_000, colors: 256, seed: 11)
        let compressed = GIFLZWTestEncoder(minimumCodeSize: 8).encode(original)
        // Cuts inside a sub-block and right after a length byte: a length promising more than is left is read as
        // far as it goes.
        for cut in [0, 1, 2, compressed.count / 2, 256, compressed.count - 3] {
            #expect { try Self.decode(Array(compressed.prefix(cut)), minimumCodeSize: 8, count: original.count) }
                throws: { ($0 as? ImageError)?.code == .badImageData }
        }
    }

    @Test("an end code before the last pixel is refused")
    func earlyEndCode() throws {
        let original: [UInt8] = [1, 2, 3, 1, 2, 3]
        let codes = GIFLZWTestEncoder(minimumCodeSize: 2).codes(for: original)
        let compressed = GIFLZWTestEncoder.subBlocks(GIFLZWTestEncoder.pack(codes))
        #expect(try Self.decode(compressed, minimumCodeSize: 2, count: 6) == original)
        #expect { try Self.decode(compressed, minimumCodeSize: 2, count: 7) } throws: {
            ($0 as? ImageError)?.message.contains("ends before its last pixel") == true
        }
    }

    @Test("a code past the next table entry is refused")
    func codeFromTheFuture() throws {
        // minimum size 2: clear 4, end 5, the first free entry 6; after one literal, 6 is the string being
        // defined and 7 does not exist yet.
        let compressed = GIFLZWTestEncoder.subBlocks(GIFLZWTestEncoder.pack([(4, 3), (1, 3), (7, 3), (5, 3)]))
        #expect { try Self.decode(compressed, minimumCodeSize: 2, count: 4) } throws: {
            ($0 as? ImageError)?.code == .badImageData
        }
        // Right after a clear there is no previous string, so even the next free entry is refused.
        let afterClear = GIFLZWTestEncoder.subBlocks(GIFLZWTestEncoder.pack([(4, 3), (6, 3), (5, 3)]))
        #expect { try Self.decode(afterClear, minimumCodeSize: 2, count: 2) } throws: {
            ($0 as? ImageError)?.code == .badImageData
        }
    }

    @Test("a stream need not start with a clear code")
    func noLeadingClear() throws {
        let original: [UInt8] = [0, 1, 0, 1, 0, 1, 1, 1]
        let codes = GIFLZWTestEncoder(minimumCodeSize: 2).codes(for: original).dropFirst()
        let compressed = GIFLZWTestEncoder.subBlocks(GIFLZWTestEncoder.pack(Array(codes)))
        #expect(try Self.decode(compressed, minimumCodeSize: 2, count: 8) == original)
    }

    @Test("minimum code sizes outside 1–8 are refused", arguments: [0, 9, 12])
    func badMinimumCodeSize(size: Int) throws {
        #expect { try Self.decode([2, 0, 0, 0], minimumCodeSize: size, count: 1) } throws: {
            ($0 as? ImageError)?.code == .badImageData
        }
    }
}
