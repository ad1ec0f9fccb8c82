import CoderTestSupport
import Foundation
import Testing
@testable import WebImage

/// Hostile and broken BMP input: each gets its typed error, never a crash, a hang or a large allocation.
@Suite struct BMPBadInputTests {
    private func code(_ data: Data, _ options: DecodeOptions = DecodeOptions()) -> ImageError.Code? {
        do {
            _ = try BMPCoder().decode(data, options: options)
            return nil
        } catch let error as ImageError {
            return error.code
        } catch {
            Issue.record("an error that is not an ImageError: \(error)")
            return nil
        }
    }

    private func propertiesCode(_ data: Data) -> ImageError.Code? {
        do {
            _ = try BMPCoder().properties(of: data)
            return nil
        } catch {
            return (error as? ImageError)?.code
        }
    }

    /// `data` with the little-endian `value` written over `width` bytes at `offset`.
    private func patched(_ data: Data, at offset: Int, _ value: Int64, width: Int = 4) -> Data {
        var copy = data
        for index in 0..<width {
            copy[copy.startIndex + offset + index] = UInt8(truncatingIfNeeded: value >> (8 * Int64(index)))
        }
        return copy
    }

    @Test func emptyAndGarbageAreBadImageData() {
        #expect(code(Data()) == .badImageData)
        #expect(code(Data("BM".utf8)) == .badImageData)
        #expect(code(Data("not a bitmap, only some text of a certain length".utf8)) == .badImageData)
    }

    @Test(arguments: BMPDecodingTests.names)
    func truncationsThatLosePixelsAreBadImageData(_ name: String) throws {
        let data = try Fixtures.data("bmp/\(name).bmp")
        let whole = try BMPCoder().decode(data, options: DecodeOptions())
        for cut in Fixtures.truncations(of: data) {
            // The last row's padding and a run-length stream's final end-of-line and end-of-bitmap escapes
            // (at most 4 bytes) hold no pixel: a file cut there may decode, and then to the whole image.
            if cut.count >= data.count - 4, let image = try? BMPCoder().decode(cut, options: DecodeOptions()) {
                #expect(image.pixels.bytes == whole.pixels.bytes)
                continue
            }
            #expect(code(cut) == .badImageData, "\(name) cut to \(cut.count) of \(data.count) bytes")
        }
    }

    @Test func uncompressedTruncationsFailInPropertiesToo() throws {
        let data = try Fixtures.data("bmp/im-rgb24.bmp")
        #expect(propertiesCode(data.prefix(data.count / 2)) == .badImageData)
        #expect(propertiesCode(data.prefix(20)) == .badImageData)
    }

    @Test func declaredSizeLargerThanTheDataIsBadImageData() throws {
        let data = try Fixtures.data("bmp/im-rgb24.bmp")  // 33 x 17, height at offset 22
        #expect(code(patched(data, at: 22, 34)) == .badImageData)
        #expect(code(patched(data, at: 18, 66)) == .badImageData)
        #expect(propertiesCode(patched(data, at: 22, 34)) == .badImageData)
    }

    @Test func absurdHeaderValuesAreTypedErrors() throws {
        let data = try Fixtures.data("bmp/im-rgb24.bmp")
        #expect(code(patched(data, at: 18, 0)) == .badImageData, "width 0")
        #expect(code(patched(data, at: 18, -33)) == .badImageData, "negative width")
        #expect(code(patched(data, at: 22, 0)) == .badImageData, "height 0")
        #expect(code(patched(data, at: 22, Int64(Int32.min))) == .badImageData, "height Int32.min")
        #expect(code(patched(data, at: 28, 3, width: 2)) == .badImageData, "3 bits per pixel")
        #expect(code(patched(data, at: 28, 0, width: 2)) == .badImageData, "0 bits per pixel")
        #expect(code(patched(data, at: 10, Int64(data.count + 1))) == .badImageData, "pixel offset past the end")
        #expect(code(patched(data, at: 10, 20)) == .badImageData, "pixel offset inside the header")
        #expect(code(patched(data, at: 14, 20)) == .badImageData, "unknown info header size")
        #expect(code(patched(data, at: 14, 5000)) == .badImageData, "info header past the end")
        #expect(code(patched(data, at: 30, 99)) == .badImageData, "unknown compression")
        #expect(code(patched(data, at: 30, 1)) == .badImageData, "RLE8 at 24 bits")
        #expect(code(patched(data, at: 30, 4)) == .unsupportedFormat, "embedded JPEG")
        #expect(code(patched(data, at: 30, 5)) == .unsupportedFormat, "embedded PNG")
    }

    @Test func badMasksAreBadImageData() throws {
        let data = try Fixtures.data("bmp/im-v5-argb32.bmp")  // V5: masks at 54, 58, 62, 66
        #expect(code(data) == nil)
        #expect(code(patched(data, at: 54, 0x00FF_FF00)) == .badImageData, "red overlaps green")
        #expect(code(patched(data, at: 54, 0x00F0_0F00 >> 8)) == .badImageData, "not contiguous")
        let short = try Fixtures.data("bmp/im-v5-rgb565.bmp")
        #expect(code(patched(short, at: 54, 0x1F_0000)) == .badImageData, "a mask past 16 bits")
    }

    @Test func runLengthDamageIsBadImageData() throws {
        let rle8 = try Fixtures.data("bmp/im-rle8.bmp")
        #expect(code(patched(rle8, at: 22, -17)) == .badImageData, "run-length data cannot be top-down")
        #expect(code(patched(rle8, at: 28, 4, width: 2)) == .badImageData, "RLE8 at 4 bits")
        // A delta at the very end, missing its two bytes.
        let rle4 = try Fixtures.data("bmp/rle4.bmp")
        let deltaStart = rle4.count - 12  // "0, 2, 2, 1" is 12 bytes before the end
        #expect(code(rle4.prefix(deltaStart + 2)) == .badImageData)
        // Zeroed stream: a run of end-of-line escapes walks off the top; the result is palette entry 0.
        var zeros = rle8
        zeros.replaceSubrange(zeros.startIndex + 1078..<zeros.endIndex, with: Data(count: rle8.count - 1078))
        let image = try BMPCoder().decode(zeros, options: DecodeOptions())
        #expect(BMPTestSupport.distinctColours(image.pixels) == 1)
    }

    @Test func hugeDeclaredSizesAreRefusedFromTheHeader() throws {
        let data = try Fixtures.data("bmp/im-rgb24.bmp")
        var huge = patched(data, at: 18, 100_000)
        huge = patched(huge, at: 22, 100_000)
        #expect(code(huge) == .imageTooLarge)
        #expect(code(patched(data, at: 18, Int64(Int32.max))) == .imageTooLarge)
        var largest = patched(data, at: 18, Int64(Int32.max))
        largest = patched(largest, at: 22, Int64(Int32.max))
        #expect(code(largest) == .imageTooLarge)
        #expect(propertiesCode(largest) == .badImageData, "no data could hold it")
        let small = DecodeOptions(limits: DecodeLimits(maxPixels: 33 * 17 - 1))
        #expect(code(data, small) == .imageTooLarge)
        #expect(code(data, DecodeOptions(limits: DecodeLimits(maxPixels: 33 * 17))) == nil)
    }

    @Test(arguments: BMPDecodingTests.names)
    func corruptCopiesNeverCrash(_ name: String) throws {
        let data = try Fixtures.data("bmp/\(name).bmp")
        var generator = SplitMix(seed: UInt64(data.count))
        for _ in 0..<60 {
            var copy = data
            for _ in 0..<3 {
                let offset = Int(generator.next() % UInt64(min(copy.count, 160)))
                copy[copy.startIndex + offset] = UInt8(truncatingIfNeeded: generator.next())
            }
            let limits = DecodeOptions(limits: DecodeLimits(maxPixels: 1 << 20))
            if let image = try? BMPCoder().decode(copy, options: limits) {
                #expect(image.size.area > 0)
                let properties = try BMPCoder().properties(of: copy)
                #expect(properties.size == image.size && properties.hasAlpha == image.hasAlpha)
            }
        }
    }
}
