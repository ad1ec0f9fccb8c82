/// What presets expand into: an option set (processing options, info options) that applies one segment at a time
/// and remembers the presets it applied.
protocol PresetExpanding {
    associatedtype Rules: PresetParsingRules
    /// What an unknown name is called in the error (`preset`, `info preset`).
    static var presetKind: String { get }
    var presets: [String] { get set }
    /// One segment into the options; `chain` is the presets being expanded (`nil` for a URL's own segment).
    mutating func apply(_ segment: String, rules: Rules, chain: [String]?) throws(ProxyError)
}

/// Rules that carry the presets `preset:NAME` refers to.
protocol PresetParsingRules {
    var presets: ProxyPresets { get }
}

extension PresetExpanding {
    /// The presets `names`, in order, expanded in place (later segments override them). A preset already being
    /// expanded (`chain`) is skipped, as imgproxy skips a preset that names itself through others.
    mutating func applyPresets(_ names: [String], rules: Rules, chain: [String]) throws(ProxyError) {
        try rules.presets.expand(names, kind: Self.presetKind, chain: chain) { step throws(ProxyError) in
            switch step {
            case .preset(let name): presets.append(name)
            case .segment(let segment, let chain): try apply(segment, rules: rules, chain: chain)
            }
        }
    }
}

extension ProcessingOptions: PresetExpanding {
    static let presetKind = "preset"
}

extension ProcessingOptions.ParsingRules: PresetParsingRules {}

extension InfoOptions: PresetExpanding {
    static let presetKind = "info preset"
}

extension InfoOptions.ParsingRules: PresetParsingRules {}
