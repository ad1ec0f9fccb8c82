import Testing
@testable import WebImage

@Suite struct TintTests {
    /// One row of known colours: opaque grey, half-transparent green, fully transparent red.
    func swatch() throws -> Image {
        Image(pixels: try PixelBuffer(width: 3, height: 1, rgba: [200, 200, 200, 255, 10, 200, 30, 128, 255, 0, 0, 0]))
    }

    func tinted(_ color: RGBA, _ mode: ImageTransformers.TintBlendMode) throws -> [RGBA] {
        let result = try ImageTransformers.Tint(color, blendMode: mode).transform(swatch())
        return (0..<3).map { result.pixels[$0, 0] }
    }

    @Test func sourceInReplacesColourAndKeepsShape() throws {
        #expect(try tinted(RGBA(255, 0, 0), .sourceIn) == [RGBA(255, 0, 0, 255), RGBA(255, 0, 0, 128), RGBA(0, 0, 0, 0)])
        // A half-transparent tint makes the silhouette half transparent: 255·128/255, 128·128/255 = 64.25.
        #expect(try tinted(RGBA(0, 0, 255, 128), .sourceIn) == [RGBA(0, 0, 255, 128), RGBA(0, 0, 255, 64), RGBA(0, 0, 0, 0)])
        let result = try ImageTransformers.Tint(RGBA(0, 0, 255, 128)).transform(
            Image(pixels: try PixelBuffer(width: 1, height: 1, filledWith: RGBA(1, 2, 3))))
        #expect(result.hasAlpha)
    }

    @Test func sourceAtopLaysTheColourOverWithItsAlphaAsStrength() throws {
        // 128/255 of blue over grey 200: 200·127/255 = 99.6 → 100 for red and green, 200 + (255−200)·128/255 = 227.6.
        #expect(try tinted(RGBA(0, 0, 255, 128), .sourceAtop)[0] == RGBA(100, 100, 228, 255))
        // Alpha stays the image's.
        #expect(try tinted(RGBA(0, 0, 255, 128), .sourceAtop)[1].a == 128)
        #expect(try tinted(RGBA(0, 0, 255, 255), .sourceAtop)[1] == RGBA(0, 0, 255, 128))
    }

    @Test func separableBlendModesOnKnownColours() throws {
        let tint = RGBA(255, 128, 0)
        // multiply: 200·255/255, 200·128/255 = 100.4, 0.
        #expect(try tinted(tint, .multiply)[0] == RGBA(200, 100, 0, 255))
        // screen: 255, 200 + 128 − 200·128/255 = 227.6, 200.
        #expect(try tinted(tint, .screen)[0] == RGBA(255, 228, 200, 255))
        // overlay with the image above half: 1 − 2(1 − 200/255)(1 − t): red 255, green 1 − 2·55/255·127/255
        // = 0.7852 → 200.2, blue 1 − 2·55/255 = 0.5686 → 145.
        #expect(try tinted(tint, .overlay)[0] == RGBA(255, 200, 145, 255))
        // overlay below half (green pixel's red channel 10): 2·10/255·255/255 → 20.
        #expect(try tinted(tint, .overlay)[1].r == 20)
        #expect(try tinted(tint, .darken)[0] == RGBA(200, 128, 0, 255))
        #expect(try tinted(tint, .lighten)[0] == RGBA(255, 200, 200, 255))
        for mode in ImageTransformers.TintBlendMode.allCases {
            let colors = try tinted(tint, mode)
            #expect(colors[2] == RGBA(0, 0, 0, 0), "\(mode) keeps transparent pixels transparent")
            #expect(colors[1].a == 128, "\(mode) keeps the image's alpha")
        }
    }

    @Test func transparentTintOnlyChangesSourceIn() throws {
        for mode in ImageTransformers.TintBlendMode.allCases where mode != .sourceIn {
            #expect(try tinted(RGBA(255, 0, 0, 0), mode) == [RGBA(200, 200, 200), RGBA(10, 200, 30, 128), RGBA(0, 0, 0, 0)])
        }
    }

    @Test func everyFrameIsTinted() throws {
        let frames = try [RGBA(10, 10, 10), RGBA(250, 250, 250)].map {
            ImageFrame(pixels: try PixelBuffer(width: 2, height: 2, filledWith: $0), duration: 0.05)
        }
        let result = try ImageTransformers.Tint(RGBA(0, 255, 0), blendMode: .multiply).transform(Image(frames: frames))
        #expect(result.frames.map { $0.pixels[1, 1] } == [RGBA(0, 10, 0), RGBA(0, 250, 0)])
    }
}
