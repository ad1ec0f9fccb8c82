import Testing
@testable import WebImage

@Suite struct PixelBufferTests {
    @Test func storesRowsTopToBottomInRGBAOrder() throws {
        let buffer = try PixelBuffer(width: 2, height: 2, rgba: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16])
        #expect(buffer.bytesPerRow == 8 && buffer.byteCount == 16)
        #expect(buffer[1, 0] == RGBA(5, 6, 7, 8))
        #expect(buffer[0, 1] == RGBA(9, 10, 11, 12))
        #expect(buffer.containsTransparency)
    }

    @Test func fillAndTransparency() throws {
        let opaque = try PixelBuffer(width: 3, height: 5, filledWith: RGBA(9, 8, 7, 255))
        #expect(opaque[2, 4] == RGBA(9, 8, 7, 255))
        #expect(!opaque.containsTransparency)
        #expect(try PixelBuffer(width: 1, height: 1).containsTransparency)
    }

    @Test func oneTranslucentPixelAnywhereIsFound() throws {
        // 101x50 pixels: 78 whole 256-byte blocks and a tail of 56 pixels checked one by one.
        let (width, height) = (101, 50)
        #expect(!(try PixelBuffer(width: width, height: height, filledWith: RGBA(0, 0, 0, 255))).containsTransparency)
        for pixel in [0, 1, 63, 64, 1000, 4991, 4992, width * height - 1] {
            var rgba = [UInt8](repeating: 255, count: width * height * 4)
            rgba[pixel * 4 + 3] = 254
            #expect(try PixelBuffer(width: width, height: height, rgba: rgba).containsTransparency, "pixel \(pixel)")
            rgba[pixel * 4 + 3] = 255
            rgba[pixel * 4] = 0  // colour is not alpha
            #expect(!(try PixelBuffer(width: width, height: height, rgba: rgba)).containsTransparency)
        }
    }

    @Test func refusesImpossibleSizes() {
        #expect(throws: ImageError(.badImageData, "an image needs at least one pixel, got 0x5")) {
            try PixelBuffer(width: 0, height: 5)
        }
        #expect { try PixelBuffer(width: Int.max / 2, height: 3) } throws: {
            ($0 as? ImageError)?.code == .imageTooLarge
        }
        #expect { try PixelBuffer(width: 2, height: 2, rgba: [1, 2, 3]) } throws: {
            ($0 as? ImageError)?.code == .badImageData
        }
    }

    @Test func memoryCostCountsSharedBitmapsOnce() throws {
        let a = try PixelBuffer(width: 10, height: 10), b = try PixelBuffer(width: 10, height: 10)
        let image = Image(frames: [ImageFrame(pixels: a, duration: 0.1), ImageFrame(pixels: a, duration: 0.1),
                                   ImageFrame(pixels: b, duration: 0.2)], loopCount: 0)
        #expect(image.memoryCost == 800)
        #expect(image.isAnimated)
        #expect(abs(image.duration - 0.4) < 1e-9)
    }
}

@Suite struct PixelMemoryPoolTests {
    @Test func smallBlocksAreExactAndLargeOnesRoundToQuarterSteps() {
        #expect(PixelMemoryPool.capacity(for: 1000) == 1000)
        #expect(PixelMemoryPool.capacity(for: 1 << 20) == 1 << 20)
        #expect(PixelMemoryPool.capacity(for: (1 << 20) + 1) == (1 << 20) + (1 << 18))
        let twelveMegapixels = 4000 * 3000 * 4
        let capacity = PixelMemoryPool.capacity(for: twelveMegapixels)
        #expect(capacity >= twelveMegapixels && capacity <= twelveMegapixels * 5 / 4)
        #expect(PixelMemoryPool.capacity(for: twelveMegapixels - 4096) == capacity)
    }

    @Test func recycledBlocksAreReusedUpToTheLimit() throws {
        let pool = PixelMemoryPool(maximumRetainedBytes: 8 << 20)
        let first = try #require(pool.allocate(byteCount: 3 << 20))
        pool.recycle(first.pointer, capacity: first.capacity)
        #expect(pool.retainedBytes == first.capacity)
        let second = try #require(pool.allocate(byteCount: 3 << 20))
        #expect(second.pointer == first.pointer)
        #expect(pool.retainedBytes == 0)
        let third = try #require(pool.allocate(byteCount: 6 << 20))
        pool.recycle(second.pointer, capacity: second.capacity)
        pool.recycle(third.pointer, capacity: third.capacity)  // over the 8 MB limit: freed, not kept
        #expect(pool.retainedBytes == second.capacity)
        pool.drain()
        #expect(pool.retainedBytes == 0)
    }
}

@Suite struct LargePageMemoryTests {
    @Test func largeBlocksAreMappedOnHugePageBoundariesAndHoldWhatIsWritten() throws {
        let byteCount = 4000 * 3000 * 4
        let block = try #require(LargePageMemory.allocate(byteCount: byteCount))
        defer { LargePageMemory.release(block, byteCount: byteCount) }
        #if os(Linux)
        #expect(LargePageMemory.isMapped(capacity: byteCount))
        #expect(UInt(bitPattern: block) % UInt(LargePageMemory.hugePageSize) == 0)
        #endif
        let bytes = block.assumingMemoryBound(to: UInt8.self)
        for offset in stride(from: 0, to: byteCount, by: 4093) { bytes[offset] = UInt8(truncatingIfNeeded: offset) }
        bytes[byteCount - 1] = 0xA5
        let mismatches = stride(from: 0, to: byteCount, by: 4093).filter { bytes[$0] != UInt8(truncatingIfNeeded: $0) }
        #expect(mismatches.isEmpty)
        #expect(bytes[byteCount - 1] == 0xA5)
    }

    @Test func smallBlocksComeFromMalloc() throws {
        #expect(!LargePageMemory.isMapped(capacity: LargePageMemory.minimumMappedBytes - 1))
        let block = try #require(LargePageMemory.allocate(byteCount: 100))
        block.storeBytes(of: 0x1234_5678, as: UInt32.self)
        #expect(block.load(as: UInt32.self) == 0x1234_5678)
        LargePageMemory.release(block, byteCount: 100)
    }

    @Test func aPooledTwelveMegapixelBufferIsWholeAfterBeingRecycled() throws {
        let first = try PixelBuffer(width: 4000, height: 3000, filledWith: RGBA(1, 2, 3, 4))
        #expect(first[3999, 2999] == RGBA(1, 2, 3, 4))
        let second = try PixelBuffer(width: 4000, height: 3000, filledWith: RGBA(9, 8, 7, 6))
        #expect(second[0, 0] == RGBA(9, 8, 7, 6))
        #expect(second[3999, 2999] == RGBA(9, 8, 7, 6))
        #expect(first[0, 0] == RGBA(1, 2, 3, 4))
    }
}
