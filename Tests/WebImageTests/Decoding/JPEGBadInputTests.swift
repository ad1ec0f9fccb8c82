import Foundation
import Testing
@testable import WebImage

@Suite struct JPEGBadInputTests {
    let coder = JPEGCoder()

    static let validFixtures = [
        "baseline", "progressive", "restart", "sampling-444", "sampling-422", "sampling-440", "sampling-411",
        "grayscale", "cmyk", "cmyk-no-adobe", "ycck", "quadrants-444", "orientation-6", "extraneous-bytes",
        "eoi-in-comment", "large-quadrants",
    ]

    func errorCode(_ data: Data, options: DecodeOptions = DecodeOptions()) -> ImageError.Code? {
        do {
            _ = try coder.decode(data, options: options)
            return nil
        } catch let error as ImageError {
            return error.code
        } catch {
            Issue.record("not an ImageError: \(error)")
            return nil
        }
    }

    /// Every cut of a file that ends before its EOI marker is refused (none of these cuts is a complete image:
    /// the last byte removed is already part of the EOI marker).
    @Test(arguments: validFixtures)
    func everyTruncationIsBadImageData(name: String) throws {
        let data = try Fixtures.data("jpeg/\(name).jpg")
        for cut in Fixtures.truncations(of: data) {
            #expect(errorCode(cut) == .badImageData, "\(name) cut at \(cut.count)")
        }
    }

    @Test(arguments: ["baseline", "progressive", "restart", "eoi-in-comment"])
    func everySingleCutLengthIsBadImageData(name: String) throws {
        let data = try Fixtures.data("jpeg/\(name).jpg")
        for length in 0..<data.count {
            #expect(errorCode(data.prefix(length)) == .badImageData, "\(name) cut at \(length)")
        }
    }

    @Test func aCutFileZeroFilledToItsFullLengthIsBadImageData() throws {
        let data = try Fixtures.data("jpeg/baseline.jpg")
        for length in [data.count / 3, data.count / 2, data.count - 2] {
            let padded = data.prefix(length) + Data(repeating: 0, count: data.count - length)
            #expect(errorCode(padded) == .badImageData)
        }
    }

    @Test(arguments: [
        "corrupt-no-quantization", "corrupt-frame-header", "corrupt-marker-in-scan", "corrupt-restart",
        "corrupt-garbage-after-soi",
    ])
    func corruptCopiesAreBadImageData(name: String) throws {
        #expect(errorCode(try Fixtures.data("jpeg/\(name).jpg")) == .badImageData)
    }

    /// libjpeg keeps tables in a decompressor between images; a file without its own must not borrow them.
    @Test func aFileWithoutTablesDoesNotBorrowThemFromAnEarlierDecode() throws {
        let complete = try Fixtures.data("jpeg/baseline.jpg")
        let tableless = try Fixtures.data("jpeg/corrupt-no-quantization.jpg")
        for _ in 0..<3 {
            #expect(errorCode(complete) == nil)
            #expect(errorCode(tableless) == .badImageData)
        }
    }

    @Test(arguments: ["bomb-65535", "bomb-65500"])
    func headerBombsAreRefusedBeforeAllocating(name: String) throws {
        let data = try Fixtures.data("jpeg/\(name).jpg")
        #expect(data.count < 1_000)
        #expect(errorCode(data) == .imageTooLarge)
    }

    @Test func sidesOverLibjpegsLimitAreTooLargeEvenWithoutAPixelLimit() throws {
        let data = try Fixtures.data("jpeg/bomb-65535.jpg")
        let unlimited = DecodeOptions(limits: DecodeLimits(maxPixels: .max))
        #expect(errorCode(data, options: unlimited) == .imageTooLarge)
    }

    @Test func configuredPixelLimitIsChecked() throws {
        let data = try Fixtures.data("jpeg/baseline.jpg")  // 96 × 64 = 6 144 pixels
        #expect(errorCode(data, options: DecodeOptions(limits: DecodeLimits(maxPixels: 6_143))) == .imageTooLarge)
        #expect(errorCode(data, options: DecodeOptions(limits: DecodeLimits(maxPixels: 6_144))) == nil)
    }

    @Test func emptyTextAndGarbageAreBadImageData() {
        #expect(errorCode(Data()) == .badImageData)
        #expect(errorCode(Data("this is not a picture".utf8)) == .badImageData)
        #expect(errorCode(Data([0xFF, 0xD8])) == .badImageData)
        #expect(errorCode(Data([0xFF, 0xD8, 0xFF])) == .badImageData)
        #expect(errorCode(Data([0xFF, 0xD8, 0xFF, 0xD9])) == .badImageData)
        #expect(errorCode(Data([0xFF, 0xD8]) + Data(repeating: 0, count: 4096)) == .badImageData)
        #expect(errorCode(Data([0xFF, 0xD8]) + Data(repeating: 0xFF, count: 4096)) == .badImageData)
    }

    /// Patches the first SOF segment of baseline.jpg.
    func patchedFrame(_ patch: (inout Data, Int) -> Void) throws -> Data {
        var data = try Fixtures.data("jpeg/baseline.jpg")
        let sof = try #require(JPEGTestBytes.baselineFrameHeaderOffset(in: data))
        patch(&data, sof)
        return data
    }

    @Test func twelveBitAndLosslessAreUnsupported() throws {
        let twelveBit = try patchedFrame { data, sof in data[sof + 4] = 12 }
        #expect(errorCode(twelveBit) == .unsupportedFormat)
        let lossless = try patchedFrame { data, sof in data[sof + 1] = 0xC3 }
        #expect(errorCode(lossless) == .unsupportedFormat)
    }

    /// 0xC8 (JPG) starts a frame libjpeg refuses as an unsupported process: every reader of the header says so
    /// alike, rather than one skipping it as a table and then finding a scan without a frame.
    @Test func aJPGFrameMarkerIsAnUnsupportedProcessEverywhere() throws {
        let jpg = try patchedFrame { data, sof in data[sof + 1] = 0xC8 }
        #expect(errorCode(jpg) == .unsupportedFormat)
        let markers = try jpg.withUnsafeBytes { try JPEGMarkerScanner.scan($0) }
        #expect(markers.frameMarker == 0xC8 && markers.isUnsupportedProcess)
    }

    @Test func aFrameWithoutRowsIsBadImageData() throws {
        let noRows = try patchedFrame { data, sof in data[sof + 5] = 0; data[sof + 6] = 0 }
        #expect(errorCode(noRows) == .badImageData)
    }

    @Test func aFrameWiderThanItsDataIsBadImageData() throws {
        // 97 columns instead of 96 needs a seventh MCU per row the scan does not have.
        let wider = try patchedFrame { data, sof in data[sof + 8] = 97 }
        #expect(errorCode(wider) == .badImageData)
    }
}
