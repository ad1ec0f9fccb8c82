import Testing
@testable import WebImage

@Suite struct TransformerKeyTests {
    @Test func builtInKeysHaveTheDocumentedFormat() {
        let square = PixelSize(width: 200, height: 200)
        #expect(ImageTransformers.Resize(to: square, fit: .aspectFill).key == "Resizing({200,200},aspectFill)")
        #expect(ImageTransformers.Resize(to: PixelSize(width: 64, height: 32)).key == "Resizing({64,32},fill)")
        #expect(ImageTransformers.Resize(to: square, fit: .aspectFit, filter: .area).key
            == "Resizing({200,200},aspectFit,area)")
        #expect(ImageTransformers.Crop(PixelRect(x: 10, y: 20, width: 100, height: 50)).key
            == "Cropping({10,20,100,50})")
        #expect(ImageTransformers.Crop(PixelRect(x: -5, y: 0, width: 1, height: 1)).key == "Cropping({-5,0,1,1})")
        #expect(ImageTransformers.RoundCorners(radius: 16, borderWidth: 2, borderColor: RGBA(255, 255, 255)).key
            == "RoundCorner(16,15,2,#ffffffff)")
        #expect(ImageTransformers.RoundCorners(radius: 4.5, corners: [.topLeft, .bottomRight]).key
            == "RoundCorner(4.5,9,0,#00000000)")
        #expect(ImageTransformers.Flip(horizontal: true, vertical: false).key == "Flipping(1,0)")
        #expect(ImageTransformers.Flip(horizontal: false, vertical: true).key == "Flipping(0,1)")
        #expect(ImageTransformers.Rotate(degrees: 30, fitSize: true).key == "Rotation(30,1)")
        #expect(ImageTransformers.Rotate(degrees: -45.5, fitSize: false).key == "Rotation(-45.5,0)")
        #expect(ImageTransformers.Tint(RGBA(255, 0, 0, 128), blendMode: .multiply).key == "Tint(#ff000080,multiply)")
        #expect(ImageTransformers.Tint(RGBA(1, 2, 3)).key == "Tint(#010203ff,sourceIn)")
        #expect(ImageTransformers.Blur(radius: 10).key == "Blur(10)")
        #expect(ImageTransformers.Blur(radius: 2.5).key == "Blur(2.5)")
        #expect(ImageTransformers.Filter(name: "sepia") { $0 }.key == "Filter(sepia)")
    }

    @Test func factoriesBuildTheSameTransformers() {
        let transformers: [any ImageTransformer] = [
            .resize(to: PixelSize(width: 200, height: 100), fit: .aspectFit),
            .crop(PixelRect(x: 1, y: 2, width: 3, height: 4)),
            .roundCorners(radius: 8, corners: .topLeft, borderWidth: 1, borderColor: RGBA(0, 0, 0)),
            .flip(horizontal: true, vertical: true),
            .rotate(degrees: 90, fitSize: false),
            .tint(RGBA(0, 128, 255), blendMode: .screen),
            .blur(radius: 0.75),
            .filter(name: "invert") { $0 },
        ]
        #expect(transformers.map(\.key) == [
            "Resizing({200,100},aspectFit)", "Cropping({1,2,3,4})", "RoundCorner(8,1,1,#000000ff)",
            "Flipping(1,1)", "Rotation(90,0)", "Tint(#0080ffff,screen)", "Blur(0.75)", "Filter(invert)",
        ])
    }

    @Test func pipelineJoinsMemberKeysWithDashes() {
        let pipeline: any ImageTransformer = .pipeline([
            .resize(to: PixelSize(width: 200, height: 200), fit: .aspectFill),
            .roundCorners(radius: 16),
            .pipeline([.blur(radius: 1), .flip(horizontal: false, vertical: true)]),
        ])
        #expect(pipeline.key == "Resizing({200,200},aspectFill)-RoundCorner(16,15,0,#00000000)-Blur(1)-Flipping(0,1)")
        #expect(ImageTransformers.Pipeline([]).key == "")
    }

    @Test func numbersAreFormattedTheSameEverywhere() {
        #expect(TransformerKeyFormat.number(10) == "10")
        #expect(TransformerKeyFormat.number(-0.0) == "0")
        #expect(TransformerKeyFormat.number(1.0 / 3) == "0.333333")
        #expect(TransformerKeyFormat.number(2.0 / 3) == "0.666667")
        #expect(TransformerKeyFormat.number(0.1 + 0.2) == "0.3")
        #expect(TransformerKeyFormat.number(-1.25) == "-1.25")
        #expect(TransformerKeyFormat.number(0.0000004) == "0")
        #expect(TransformerKeyFormat.number(0.0000006) == "0.000001")
        #expect(TransformerKeyFormat.number(123_456_789.5) == "123456789.5")
        #expect(TransformerKeyFormat.number(1e20) == "1e+20")
        #expect(TransformerKeyFormat.number(.nan) == "nan")
        #expect(TransformerKeyFormat.number(.infinity) == "inf")
        #expect(TransformerKeyFormat.number(-.infinity) == "-inf")
        #expect(TransformerKeyFormat.color(RGBA(0, 15, 16, 255)) == "#000f10ff")
    }

    @Test func keysDoNotDependOnInstanceOrOrder() {
        let first = ImageTransformers.RoundCorners(radius: 3, corners: [.bottomRight, .topLeft])
        let second = ImageTransformers.RoundCorners(radius: 3.0000001, corners: [.topLeft, .bottomRight])
        #expect(first.key == second.key)
    }
}

@Suite struct ColorHexTests {
    @Test func parsesHexColours() {
        #expect(RGBA(hex: "#FF000080") == RGBA(255, 0, 0, 128))
        #expect(RGBA(hex: "0a0B0c") == RGBA(10, 11, 12, 255))
        #expect(RGBA(hex: "#ffffffff")?.hexString == "#ffffffff")
        for bad in ["", "#", "#fff", "#12345", "#1234567", "#123456789", "#gg0000", "# 12345", "+12345", "#-12345"] {
            #expect(RGBA(hex: bad) == nil, "\(bad)")
        }
    }
}
