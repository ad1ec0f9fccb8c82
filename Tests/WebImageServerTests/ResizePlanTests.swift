import Testing
import WebImage

@testable import WebImageServer

/// imgproxy's resizing rules on a 400×300 (landscape) source.
@Suite struct ResizePlanTests {
    let source = PixelSize(width: 400, height: 300)

    func plan(_ segments: [String], source: PixelSize? = nil) throws -> ResizePlan {
        ResizePlan(source: source ?? self.source, options: try ProcessingOptions(segments: segments))
    }

    @Test func fitKeepsTheAspectRatioInsideTheBox() throws {
        #expect(try plan(["rs:fit:200:200"]).outputSize == PixelSize(width: 200, height: 150))
        #expect(try plan(["w:100"]).outputSize == PixelSize(width: 100, height: 75))
        #expect(try plan(["h:60"]).outputSize == PixelSize(width: 80, height: 60))
        #expect(try plan([]).outputSize == source)
        #expect(try plan(["rs:fit:800:800"]).outputSize == source)  // no enlarging by default
        #expect(try plan(["rs:fit:800:800:1"]).outputSize == PixelSize(width: 800, height: 600))
        #expect(try plan(["w:100", "dpr:2"]).outputSize == PixelSize(width: 200, height: 150))
    }

    @Test func fillCoversTheBoxAndCropsTheRest() throws {
        let fill = try plan(["rs:fill:100:100"])
        #expect(fill.scaledSize == PixelSize(width: 133, height: 100))
        #expect(fill.finalCrop == ResizePlan.CropStep(size: PixelSize(width: 100, height: 100), gravity: .center))
        #expect(fill.outputSize == PixelSize(width: 100, height: 100))
        // Larger than the source without enlarge: scaled not at all, cropped to what exists.
        #expect(try plan(["rs:fill:500:100"]).outputSize == PixelSize(width: 400, height: 100))
    }

    @Test func fillDownKeepsTheBoxAspectRatioWhenTooSmall() throws {
        let down = try plan(["rs:fill-down:800:400"])
        #expect(down.scaledSize == source)
        #expect(down.outputSize == PixelSize(width: 400, height: 200))
        #expect(try plan(["rs:fill-down:100:100"]).outputSize == PixelSize(width: 100, height: 100))
    }

    @Test func forceIgnoresTheAspectRatio() throws {
        #expect(try plan(["rs:force:100:100"]).outputSize == PixelSize(width: 100, height: 100))
        #expect(try plan(["rs:force:100:0"]).outputSize == PixelSize(width: 100, height: 300))
    }

    @Test func autoFillsSameOrientationsAndFitsOthers() throws {
        #expect(try plan(["rs:auto:200:100"]).outputSize == PixelSize(width: 200, height: 100))  // both landscape
        #expect(try plan(["rs:auto:100:200"]).outputSize == PixelSize(width: 100, height: 75))  // portrait box
    }

    @Test func cropComesBeforeResizing() throws {
        let cropped = try plan(["c:200:0.5", "w:100"])
        #expect(cropped.sourceCrop == ResizePlan.CropStep(size: PixelSize(width: 200, height: 150), gravity: .center))
        #expect(cropped.outputSize == PixelSize(width: 100, height: 75))
        #expect(try plan(["c:0:0"]).sourceCrop == nil)
        #expect(try plan(["c:5000:5000"]).sourceCrop == nil)  // clamped to the source: nothing cut
    }

    @Test func gravityPlacesCropsInsideTheImage() {
        let image = PixelSize(width: 100, height: 80), crop = PixelSize(width: 40, height: 20)
        func rect(_ gravity: Gravity) -> PixelRect { GravityPlacement.rect(of: crop, in: image, gravity: gravity) }
        #expect(rect(.center) == PixelRect(x: 30, y: 30, width: 40, height: 20))
        #expect(rect(Gravity(.northWest)) == PixelRect(x: 0, y: 0, width: 40, height: 20))
        #expect(rect(Gravity(.southEast)) == PixelRect(x: 60, y: 60, width: 40, height: 20))
        #expect(rect(Gravity(.east, x: 10)) == PixelRect(x: 50, y: 30, width: 40, height: 20))
        #expect(rect(Gravity(.north, x: 0.1, y: 5)) == PixelRect(x: 40, y: 5, width: 40, height: 20))
        #expect(rect(Gravity(.west, x: 500)) == PixelRect(x: 60, y: 30, width: 40, height: 20))  // clamped
        #expect(rect(Gravity(.focusPoint, x: 1, y: 0)) == PixelRect(x: 60, y: 0, width: 40, height: 20))
    }

    @Test func smartCropFindsTheDetailedWindow() throws {
        // A flat grey image with a checkerboard patch at x 70..<90: a 30-pixel-wide crop must cover it.
        var bytes = [UInt8](repeating: 128, count: 100 * 20 * 4)
        for y in 0..<20 {
            for x in 70..<90 where (x + y) % 2 == 0 {
                for channel in 0..<3 { bytes[(y * 100 + x) * 4 + channel] = 255 }
            }
        }
        for index in stride(from: 3, to: bytes.count, by: 4) { bytes[index] = 255 }
        let pixels = try PixelBuffer(width: 100, height: 20, rgba: bytes)
        let rect = SmartCrop.rect(of: PixelSize(width: 30, height: 20), in: pixels)
        #expect(rect.y == 0 && rect.x >= 60 && rect.x + 30 <= 100)
        #expect(SmartCrop.bestStart(of: 2, in: [0, 1, 5, 5, 1]) == 2)
        #expect(SmartCrop.bestStart(of: 9, in: [1, 2]) == 0)
    }
}
