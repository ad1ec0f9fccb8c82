import Foundation

/// An image's dominant colours in six roles (vibrant and muted, each light, normal and dark), chosen the way
/// Android's Palette library chooses its swatches, and the roles imgproxy's `/info` answers under
/// `dominant_colors`.
///
/// The pixels are reduced to a palette of 16 colours with their populations (near-black and near-white colours
/// left out, as they dominate without saying anything). Each role has a range and a target of saturation and of
/// lightness (HSL); of the palette colours inside a role's ranges and not taken by an earlier role, the one with
/// the best score — closeness to the targets (weights 0.24 saturation, 0.52 lightness) plus population relative to
/// the largest (0.24) — takes the role. Roles are filled in the order light vibrant, vibrant, dark vibrant, light
/// muted, muted, dark muted.
public struct DominantColors: Sendable, Equatable {
    /// A saturated colour of middle lightness.
    public var vibrant: RGBA?
    /// A saturated light colour.
    public var lightVibrant: RGBA?
    /// A saturated dark colour.
    public var darkVibrant: RGBA?
    /// A greyish colour of middle lightness.
    public var muted: RGBA?
    /// A greyish light colour.
    public var lightMuted: RGBA?
    /// A greyish dark colour.
    public var darkMuted: RGBA?

    /// Colours given role by role; the roles not given are `nil`.
    public init(vibrant: RGBA? = nil, lightVibrant: RGBA? = nil, darkVibrant: RGBA? = nil, muted: RGBA? = nil,
                lightMuted: RGBA? = nil, darkMuted: RGBA? = nil) {
        self.vibrant = vibrant
        self.lightVibrant = lightVibrant
        self.darkVibrant = darkVibrant
        self.muted = muted
        self.lightMuted = lightMuted
        self.darkMuted = darkMuted
    }

    /// The dominant colours of `pixels` (fully transparent ones left out). With `buildingMissing`, a role no
    /// palette colour fits is made from a filled one: a vibrant role from another vibrant colour (or, with none,
    /// the muted colour of the same lightness) given the role's target lightness, a muted role from the vibrant
    /// colour of the same lightness given the muted target saturation (or from another muted colour given the
    /// role's lightness). Roles stay `nil` only when nothing is there to build from.
    public init(of pixels: PixelBuffer, buildingMissing: Bool = false) throws {
        let swatches = try pixels.paletteWithPopulations(maxColors: 16)
            .filter { $0.colour.a != 0 }
            .map { (hsl: HSL($0.colour), population: $0.population) }
            .filter { $0.hsl.lightness > 0.05 && $0.hsl.lightness < 0.95 }
        let largest = Double(swatches.map(\.population).max() ?? 1)
        var taken = Set<Int>()
        var chosen: [Role: HSL] = [:]
        for role in Role.allCases {
            var best: (index: Int, score: Double)?
            for (index, swatch) in swatches.enumerated() where !taken.contains(index) && role.admits(swatch.hsl) {
                let score = role.score(swatch.hsl, population: Double(swatch.population) / largest)
                if best == nil || score > best!.score { best = (index, score) }
            }
            if let best {
                taken.insert(best.index)
                chosen[role] = swatches[best.index].hsl
            }
        }
        if buildingMissing { Self.buildMissing(&chosen) }
        self.init(vibrant: chosen[.vibrant]?.rgba, lightVibrant: chosen[.lightVibrant]?.rgba,
                  darkVibrant: chosen[.darkVibrant]?.rgba, muted: chosen[.muted]?.rgba,
                  lightMuted: chosen[.lightMuted]?.rgba, darkMuted: chosen[.darkMuted]?.rgba)
    }

    private static func buildMissing(_ chosen: inout [Role: HSL]) {
        let vibrants: [Role] = [.vibrant, .darkVibrant, .lightVibrant]
        let muteds: [Role] = [.muted, .darkMuted, .lightMuted]
        for role in vibrants where chosen[role] == nil {
            let source = vibrants.compactMap { chosen[$0] }.first ?? chosen[role.counterpart]
            chosen[role] = source.map { HSL(hue: $0.hue, saturation: $0.saturation, lightness: role.lightness.target) }
        }
        for role in muteds where chosen[role] == nil {
            if let vibrant = chosen[role.counterpart] {
                chosen[role] = HSL(hue: vibrant.hue, saturation: role.saturation.target, lightness: vibrant.lightness)
            } else if let other = muteds.compactMap({ chosen[$0] }).first {
                chosen[role] = HSL(hue: other.hue, saturation: other.saturation, lightness: role.lightness.target)
            }
        }
    }

    /// The six roles, in the order they choose, with their ranges and targets.
    private enum Role: CaseIterable {
        case lightVibrant, vibrant, darkVibrant, lightMuted, muted, darkMuted

        typealias Band = (minimum: Double, target: Double, maximum: Double)

        var lightness: Band {
            switch self {
            case .lightVibrant, .lightMuted: (0.55, 0.74, 1)
            case .vibrant, .muted: (0.3, 0.5, 0.7)
            case .darkVibrant, .darkMuted: (0, 0.26, 0.45)
            }
        }

        var saturation: Band {
            switch self {
            case .lightVibrant, .vibrant, .darkVibrant: (0.35, 1, 1)
            case .lightMuted, .muted, .darkMuted: (0, 0.3, 0.4)
            }
        }

        /// The role of the same lightness in the other family.
        var counterpart: Role {
            switch self {
            case .lightVibrant: .lightMuted
            case .vibrant: .muted
            case .darkVibrant: .darkMuted
            case .lightMuted: .lightVibrant
            case .muted: .vibrant
            case .darkMuted: .darkVibrant
            }
        }

        func admits(_ colour: HSL) -> Bool {
            (saturation.minimum...saturation.maximum).contains(colour.saturation)
                && (lightness.minimum...lightness.maximum).contains(colour.lightness)
        }

        func score(_ colour: HSL, population: Double) -> Double {
            0.24 * (1 - abs(colour.saturation - saturation.target))
                + 0.52 * (1 - abs(colour.lightness - lightness.target))
                + 0.24 * population
        }
    }
}

/// A colour as hue (0..<360), saturation and lightness (0...1), the HSL model of CSS.
struct HSL: Equatable {
    var hue: Double
    var saturation: Double
    var lightness: Double

    init(hue: Double, saturation: Double, lightness: Double) {
        self.hue = hue
        self.saturation = saturation
        self.lightness = lightness
    }

    init(_ colour: RGBA) {
        let r = Double(colour.r) / 255, g = Double(colour.g) / 255, b = Double(colour.b) / 255
        let largest = max(r, g, b), smallest = min(r, g, b), range = largest - smallest
        lightness = (largest + smallest) / 2
        saturation = range == 0 ? 0 : range / (1 - abs(2 * lightness - 1))
        var degrees: Double
        if range == 0 {
            degrees = 0
        } else if largest == r {
            degrees = 60 * ((g - b) / range).truncatingRemainder(dividingBy: 6)
        } else if largest == g {
            degrees = 60 * ((b - r) / range + 2)
        } else {
            degrees = 60 * ((r - g) / range + 4)
        }
        if degrees < 0 { degrees += 360 }
        hue = degrees
    }

    /// The colour in 8-bit RGB, opaque.
    var rgba: RGBA {
        let chroma = (1 - abs(2 * lightness - 1)) * saturation
        let sector = hue / 60
        let second = chroma * (1 - abs(sector.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double) = switch Int(sector) % 6 {
        case 0: (chroma, second, 0)
        case 1: (second, chroma, 0)
        case 2: (0, chroma, second)
        case 3: (0, second, chroma)
        case 4: (second, 0, chroma)
        default: (chroma, 0, second)
        }
        let offset = lightness - chroma / 2
        func byte(_ value: Double) -> UInt8 { UInt8(min(255, max(0, ((value + offset) * 255).rounded()))) }
        return RGBA(byte(r), byte(g), byte(b))
    }
}
