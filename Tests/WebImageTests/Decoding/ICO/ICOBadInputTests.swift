import CoderTestSupport
import Foundation
import Testing
@testable import WebImage

/// Hostile and broken ICO/CUR input: typed errors, never a crash, a hang or a large allocation.
@Suite struct ICOBadInputTests {
    private func code(_ data: Data, _ options: DecodeOptions = DecodeOptions()) -> ImageError.Code? {
        do {
            _ = try ICOCoder().decode(data, options: options)
            return nil
        } catch let error as ImageError {
            return error.code
        } catch {
            Issue.record("an error that is not an ImageError: \(error)")
            return nil
        }
    }

    private func patched(_ data: Data, at offset: Int, _ bytes: [UInt8]) -> Data {
        var copy = data
        copy.replaceSubrange(copy.startIndex + offset..<copy.startIndex + offset + bytes.count, with: bytes)
        return copy
    }

    @Test func emptyAndBrokenDirectoriesAreBadImageData() throws {
        #expect(code(Data()) == .badImageData)
        #expect(code(Data([0, 0, 1, 0])) == .badImageData)
        #expect(code(Data([0, 0, 1, 0, 0, 0])) == .badImageData, "no entries")
        #expect(code(Data([0, 0, 1, 0, 5, 0] + [UInt8](repeating: 0, count: 20))) == .badImageData)
        let data = try Fixtures.data("ico/mixed.ico")
        #expect(code(patched(data, at: 2, [3, 0])) == .badImageData, "resource type 3")
    }

    @Test(arguments: ICODecodingTests.names)
    func everyTruncationIsBadImageData(_ name: String) throws {
        let data = try Fixtures.data("ico/\(name)")
        for cut in Fixtures.truncations(of: data) {
            #expect(code(cut) == .badImageData, "\(name) cut to \(cut.count) of \(data.count) bytes")
            #expect(throws: ImageError.self) { try ICOCoder().properties(of: cut) }
        }
    }

    @Test func entriesPointingOutsideTheFileAreBadImageData() throws {
        let data = try Fixtures.data("ico/zero-alpha32.ico")  // one entry: size at 14, offset at 18
        #expect(code(patched(data, at: 18, [0xFF, 0xFF, 0xFF, 0x7F])) == .badImageData)
        #expect(code(patched(data, at: 14, [0xFF, 0xFF, 0xFF, 0xFF])) == .badImageData)
    }

    @Test func unreadableEntriesAreSkippedAndAnAllBadDirectoryFails() throws {
        let data = try Fixtures.data("ico/mixed.ico")
        // Break the 20x20 entry's info header (at 1862): the 16x16 8-bit entry becomes the largest.
        let broken = patched(data, at: 1862, [7, 0, 0, 0])
        #expect(try ICOCoder().decode(broken, options: DecodeOptions()).size == PixelSize(width: 16, height: 16))
        #expect(try ICOCoder().properties(of: broken).size == PixelSize(width: 16, height: 16))
        let single = try Fixtures.data("ico/zero-alpha32.ico")
        #expect(code(patched(single, at: 22, [7, 0, 0, 0])) == .badImageData)
    }

    @Test func hugeDeclaredSizesAreRefusedFromTheHeader() throws {
        // The DIB header of zero-alpha32.ico (at 22) claims 40000 x 40000 (80000 with the mask).
        var data = try Fixtures.data("ico/zero-alpha32.ico")
        data = patched(data, at: 26, [0x40, 0x9C, 0, 0])
        data = patched(data, at: 30, [0x80, 0x38, 0x01, 0])
        #expect(code(data) == .imageTooLarge)
        let png = try Fixtures.data("ico/im-256.ico")
        #expect(code(png, DecodeOptions(limits: DecodeLimits(maxPixels: 256 * 256 - 1))) == .imageTooLarge)
        let small = DecodeOptions(limits: DecodeLimits(maxPixels: 100))
        #expect(code(try Fixtures.data("ico/zero-alpha32.ico"), small) == .imageTooLarge)
    }

    @Test func theXORBitmapShorterThanDeclaredIsBadImageData() throws {
        // 12 x 12 declared as 12 x 40 (the mask half included): the colour rows run past the entry.
        let data = try Fixtures.data("ico/zero-alpha32.ico")
        #expect(code(patched(data, at: 30, [80, 0, 0, 0])) == .badImageData)
    }

    @Test func frameOneIsInvalid() throws {
        let data = try Fixtures.data("ico/mixed.ico")
        #expect(code(data, DecodeOptions(frameIndex: 1)) == .invalidParameter)
    }

    @Test(arguments: ICODecodingTests.names)
    func corruptCopiesNeverCrash(_ name: String) throws {
        let data = try Fixtures.data("ico/\(name)")
        var generator = SplitMix(seed: UInt64(data.count))
        for _ in 0..<60 {
            var copy = data
            for _ in 0..<3 {
                // Aim at the directory and the first entry's header, where the decisions are made.
                let offset = Int(generator.next() % UInt64(min(copy.count, 140)))
                copy[copy.startIndex + offset] = UInt8(truncatingIfNeeded: generator.next())
            }
            let options = DecodeOptions(limits: DecodeLimits(maxPixels: 1 << 20))
            if let image = try? ICOCoder().decode(copy, options: options) {
                #expect(image.size.area > 0)
            }
            _ = try? ICOCoder().properties(of: copy)
        }
    }
}
