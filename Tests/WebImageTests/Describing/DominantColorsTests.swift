import Testing
@testable import WebImage

@Suite struct DominantColorsTests {
    private let vibrant = HSL(hue: 0, saturation: 0.9, lightness: 0.5).rgba
    private let lightVibrant = HSL(hue: 60, saturation: 0.9, lightness: 0.75).rgba
    private let darkVibrant = HSL(hue: 240, saturation: 0.9, lightness: 0.25).rgba
    private let muted = HSL(hue: 120, saturation: 0.25, lightness: 0.5).rgba
    private let lightMuted = HSL(hue: 30, saturation: 0.2, lightness: 0.75).rgba
    private let darkMuted = HSL(hue: 300, saturation: 0.2, lightness: 0.25).rgba

    /// Columns of 10 pixels of each colour, 10 rows.
    private func stripes(_ colours: [RGBA]) throws -> PixelBuffer {
        var bytes: [UInt8] = []
        for _ in 0..<10 {
            for colour in colours {
                for _ in 0..<10 { bytes += [colour.r, colour.g, colour.b, colour.a] }
            }
        }
        return try PixelBuffer(width: colours.count * 10, height: 10, rgba: bytes)
    }

    @Test func eachRoleTakesTheColourMadeForIt() throws {
        let colours = try DominantColors(of: try stripes([muted, darkVibrant, lightMuted, vibrant, darkMuted,
                                                          lightVibrant, RGBA(0, 0, 0), RGBA(255, 255, 255)]))
        #expect(colours == DominantColors(vibrant: vibrant, lightVibrant: lightVibrant, darkVibrant: darkVibrant,
                                          muted: muted, lightMuted: lightMuted, darkMuted: darkMuted))
    }

    @Test func missingRolesAreBuiltFromFilledOnesOnlyWhenAsked() throws {
        let pixels = try stripes([vibrant, vibrant, RGBA(250, 250, 250)])
        let found = try DominantColors(of: pixels)
        #expect(found == DominantColors(vibrant: vibrant))
        let built = try DominantColors(of: pixels, buildingMissing: true)
        #expect(built.vibrant == vibrant)
        let light = HSL(try #require(built.lightVibrant)), dark = HSL(try #require(built.darkVibrant))
        #expect(abs(light.lightness - 0.74) < 0.01 && abs(dark.lightness - 0.26) < 0.01)
        #expect(light.hue < 1 && dark.hue < 1 && abs(light.saturation - 0.9) < 0.02)
        let mutedBuilt = HSL(try #require(built.muted))
        #expect(abs(mutedBuilt.saturation - 0.3) < 0.02 && abs(mutedBuilt.lightness - 0.5) < 0.01)
        #expect(built.lightMuted != nil && built.darkMuted != nil)
    }

    @Test func blackWhiteAndTransparentPixelsGiveNoColours() throws {
        let pixels = try stripes([RGBA(0, 0, 0), RGBA(255, 255, 255), RGBA(200, 0, 0, 0)])
        #expect(try DominantColors(of: pixels, buildingMissing: true) == DominantColors())
    }

    @Test func hslRoundTripsEveryPrimaryAndGrey() {
        for colour in [RGBA(255, 0, 0), RGBA(0, 255, 0), RGBA(0, 0, 255), RGBA(255, 255, 0), RGBA(0, 255, 255),
                       RGBA(255, 0, 255), RGBA(128, 128, 128), RGBA(12, 200, 77), RGBA(250, 128, 114)] {
            #expect(HSL(colour).rgba == colour)
        }
    }
}
