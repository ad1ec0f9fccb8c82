import Foundation
import Testing
@testable import WebImage

@Suite struct ConvertCommandTests {
    private func withFolder(_ body: (URL) async throws -> Void) async throws {
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(folder)
    }

    @Test func infoReportsTheContractFieldsAfterOrientation() async throws {
        let path = Fixtures.url("jpeg/orientation-6.jpg").path
        let gif = Fixtures.url("gif/loop-3.gif").path
        let result = try await CommandLineTool.run(["info", "--json", path, gif])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let objects = try result.jsonLines()
        let jpeg = try #require(objects.first)
        #expect(Set(jpeg.keys) == ["source", "format", "width", "height", "frames", "loopCount", "hasAlpha",
                                   "orientation", "bytes", "colorSpace", "colorProfile"])
        #expect(jpeg["colorSpace"] as? String == "srgb")
        #expect(jpeg["colorProfile"] is NSNull)
        #expect(jpeg["format"] as? String == "jpeg")
        #expect(jpeg["width"] as? Int == 48 && jpeg["height"] as? Int == 32)  // stored 32×48, turned by tag 6
        #expect(jpeg["orientation"] as? Int == 6)
        #expect(jpeg["bytes"] as? Int == (try Fixtures.data("jpeg/orientation-6.jpg")).count)
        #expect(objects.last?["frames"] as? Int == 2 && objects.last?["loopCount"] as? Int == 3)
    }

    @Test func rgbaOutputIsTheUprightStraightAlphaPixels() async throws {
        try await withFolder { folder in
            let output = folder.appendingPathComponent("out.rgba")
            let result = try await CommandLineTool.run(["convert", Fixtures.url("png/exif6.png").path, output.path])
            #expect(result.status == 0, "\(result.stderr)")
            let decoded = try ImageCoders.shared.decode(try Fixtures.data("png/exif6.png"))
            #expect(try Data(contentsOf: output) == Data(decoded.pixels.bytes))
        }
    }

    @Test func thumbnailAndFormatFlags() async throws {
        try await withFolder { folder in
            let output = folder.appendingPathComponent("thumb.bin")
            let result = try await CommandLineTool.run(["convert", Fixtures.url("jpeg/large-quadrants.jpg").path, output.path,
                                                  "--thumbnail", "100", "--format", "webp", "--quality", "70"])
            #expect(result.status == 0, "\(result.stderr)")
            let image = try ImageCoders.shared.decode(try Data(contentsOf: output))
            #expect(image.format == .webp)
            #expect(max(image.size.width, image.size.height) == 100)
        }
    }

    /// `--preserve-hdr`: a 16-bit PNG resized stays 16-bit (the IHDR's bit depth byte) with samples 8 bits cannot
    /// hold; without the flag, 8 bits.
    @Test func preserveHDRKeepsASixteenBitSourceSixteenBit() async throws {
        try await withFolder { folder in
            var samples: [UInt16] = []
            for index in 0..<(64 * 16) {
                let red = UInt16(index * 61), green = UInt16(65_535 - index * 37)
                samples += [red, green, UInt16(index * 13 + 5), 65_535]
            }
            let deep = try DeepPixelBuffer(width: 64, height: 16, samples: samples)
            let source = folder.appendingPathComponent("deep.png")
            try ImageCoders.shared.encode(Image(frames: [ImageFrame(deep: deep)]), as: .png).write(to: source)
            for keeps in [true, false] {
                let output = folder.appendingPathComponent("out-\(keeps).png")
                let result = try await CommandLineTool.run(
                    ["convert", source.path, output.path, "--resize", "32x8"] + (keeps ? ["--preserve-hdr"] : []))
                #expect(result.status == 0, "\(result.stderr)")
                let written = try Data(contentsOf: output)
                #expect(written[24] == (keeps ? 16 : 8))
                let decoded = try ImageCoders.shared.decode(written, options: DecodeOptions(keepsHighBitDepth: true))
                #expect(decoded.size == PixelSize(width: 32, height: 8))
                let kept = decoded.frames[0].deepPixels?.samples.filter { $0 % 257 != 0 }.count ?? 0
                #expect(keeps ? kept > 500 : kept == 0)
            }
        }
    }

    @Test func animationsKeepEveryFrameAndFramesCanBeExtracted() async throws {
        try await withFolder { folder in
            let source = try ImageCoders.shared.decode(try Fixtures.data("gif/delays.gif"))
            let webp = folder.appendingPathComponent("anim.webp")
            #expect(try await CommandLineTool.run(["convert", Fixtures.url("gif/delays.gif").path, webp.path]).status == 0)
            let converted = try ImageCoders.shared.decode(try Data(contentsOf: webp))
            #expect(converted.frames.count == source.frames.count)
            #expect(converted.frames.map(\.duration) == source.frames.map(\.duration))
            #expect(converted.loopCount == source.loopCount)

            let frame = folder.appendingPathComponent("frame.png")
            #expect(try await CommandLineTool.run(["convert", Fixtures.url("gif/delays.gif").path, frame.path, "--frame", "2"]).status == 0)
            let extracted = try ImageCoders.shared.decode(try Data(contentsOf: frame))
            #expect(!extracted.isAnimated)
            #expect(extracted.pixels.bytes == source.frames[2].pixels.bytes)

            let beyond = try await CommandLineTool.run(["convert", Fixtures.url("gif/delays.gif").path, frame.path, "--frame", "99"])
            #expect(beyond.status == 1)
            #expect(beyond.errorLines.count == 1)
        }
    }

    @Test func transformsApplyInTheOrderGiven() async throws {
        try await withFolder { folder in
            let input = Fixtures.url("jpeg/baseline.jpg").path
            let first = folder.appendingPathComponent("a.png"), second = folder.appendingPathComponent("b.png")
            let resizedFirst = try await CommandLineTool.run(["convert", input, first.path, "--resize", "20x10", "--rotate", "90", "--rotate-fit"])
            let rotatedFirst = try await CommandLineTool.run(["convert", input, second.path, "--rotate", "90", "--rotate-fit", "--resize", "20x10"])
            #expect(resizedFirst.status == 0 && rotatedFirst.status == 0)
            let a = try ImageCoders.shared.decode(try Data(contentsOf: first))
            let b = try ImageCoders.shared.decode(try Data(contentsOf: second))
            #expect(a.size == PixelSize(width: 10, height: 20))
            #expect(b.size == PixelSize(width: 20, height: 10))
        }
    }

    @Test func failuresAreOneLineAndLeaveNoOutput() async throws {
        try await withFolder { folder in
            let unwritable = folder.appendingPathComponent("missing/folder/out.png")
            let result = try await CommandLineTool.run(["convert", Fixtures.url("jpeg/baseline.jpg").path, unwritable.path])
            #expect(result.status == 1)
            #expect(result.errorLines.count == 1 && result.stderr.contains("io"))

            let bomb = folder.appendingPathComponent("bomb.png")
            let refused = try await CommandLineTool.run(["convert", Fixtures.url("jpeg/bomb-65535.jpg").path, bomb.path])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("imageTooLarge"))
            #expect(!FileManager.default.fileExists(atPath: bomb.path))

            let badFlag = try await CommandLineTool.run(["convert", Fixtures.url("jpeg/baseline.jpg").path, bomb.path, "--resize", "0x4"])
            #expect(badFlag.status != 0)
            #expect(!FileManager.default.fileExists(atPath: bomb.path))
        }
    }

    @Test func anOutputIsReplacedWholeAndAFailedRenameLeavesNoTemporaryFile() async throws {
        try await withFolder { folder in
            let output = folder.appendingPathComponent("out.rgba")
            try Data(repeating: 7, count: 100_000).write(to: output)
            let replaced = try await CommandLineTool.run(["convert", Fixtures.url("png/exif6.png").path, output.path])
            #expect(replaced.status == 0, "\(replaced.stderr)")
            let decoded = try ImageCoders.shared.decode(try Fixtures.data("png/exif6.png"))
            #expect(try Data(contentsOf: output) == Data(decoded.pixels.bytes))

            // A folder where the file should go: everything is written, the rename fails, the partial file goes.
            let blocked = folder.appendingPathComponent("taken.rgba")
            try FileManager.default.createDirectory(at: blocked.appendingPathComponent("inside"),
                                                    withIntermediateDirectories: true)
            let failed = try await CommandLineTool.run(["convert", Fixtures.url("png/exif6.png").path, blocked.path])
            #expect(failed.status == 1)
            #expect(failed.errorLines.count == 1 && failed.stderr.contains("io"), "\(failed.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["out.rgba", "taken.rgba"])
        }
    }
}
