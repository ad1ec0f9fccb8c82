import Foundation

/// Named groups of options that URLs refer to with `preset:NAME` (imgproxy's presets). The preset named `default`
/// applies to every request, before the URL's own options.
public struct ProxyPresets: Sendable, Equatable {
    /// Each preset's option segments, by name.
    public let definitions: [String: [String]]

    /// Presets from a dictionary of option segments.
    public init(definitions: [String: [String]] = [:]) {
        self.definitions = definitions
    }

    /// One step of expanding presets: a preset begins (its name), or one of its segments is to be applied, with
    /// the chain of presets being expanded.
    enum ExpansionStep {
        case preset(String)
        case segment(String, chain: [String])
    }

    /// Expands the presets `names`, in order, as steps for `step`. A preset already in `chain` is skipped, as
    /// imgproxy skips a preset that names itself through others.
    /// - Throws: ``ProxyError`` 404 for a name that is not defined (`kind` says which presets: `preset`, `info
    ///   preset`), or what `step` throws.
    func expand(_ names: [String], kind: String, chain: [String],
                _ step: (ExpansionStep) throws(ProxyError) -> Void) throws(ProxyError) {
        for name in names where !name.isEmpty {
            guard let definition = definitions[name] else {
                throw .invalidURL("unknown \(kind) \"\(name.prefix(40))\"")
            }
            guard !chain.contains(name) else { continue }
            try step(.preset(name))
            for segment in definition { try step(.segment(segment, chain: chain + [name])) }
        }
    }

    /// The preset names of a presets-only URL's option segment (`thumb:pngify`); `preset:NAME` is read as the
    /// names after it, as in a URL with options, unless a preset is named `preset` or `pr`.
    func names(inPresetsOnlySegment segment: String) -> [String] {
        var names = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        if let first = names.first, first == "preset" || first == "pr", definitions[first] == nil {
            names.removeFirst()
        }
        return names
    }

    /// Presets from the text of a presets file, imgproxy's format: one `name=option/option/…` per line; blank
    /// lines and lines starting with `#` are skipped.
    /// Presets may name other presets (defined anywhere in the file); a preset that comes back to itself is
    /// expanded once, as imgproxy does.
    /// - Throws: ``ProxyConfigurationError`` naming the first line that is not a preset, names a preset twice, or
    ///   holds an option that cannot be read or a preset the file does not define.
    public init(fileContents: String) throws(ProxyConfigurationError) {
        try self.init(fileContents: fileContents) { presets, name, segments throws(ProxyError) in
            let rules = ProcessingOptions.ParsingRules(presets: presets)
            var check = ProcessingOptions()
            for segment in segments { try check.apply(segment, rules: rules, chain: [name]) }
        }
    }

    /// Info presets (imgproxy's `IMGPROXY_INFO_PRESETS`) from the text of a presets file, in the same format, each
    /// holding info options (``InfoOptions``).
    /// - Throws: ``ProxyConfigurationError`` as ``init(fileContents:)`` does.
    public init(infoFileContents fileContents: String) throws(ProxyConfigurationError) {
        try self.init(fileContents: fileContents) { presets, name, segments throws(ProxyError) in
            let rules = InfoOptions.ParsingRules(presets: presets)
            var check = InfoOptions()
            for segment in segments { try check.apply(segment, rules: rules, chain: [name]) }
        }
    }

    /// Reads the definitions, then checks each preset's options with `check` in the order of the file.
    private init(fileContents: String,
                 check: (ProxyPresets, String, [String]) throws(ProxyError) -> Void) throws(ProxyConfigurationError) {
        var definitions = [String: [String]]()
        var lines = [String: Int]()
        for (number, rawLine) in fileContents.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            guard let equals = line.firstIndex(of: "="), !line[..<equals].allSatisfy(\.isWhitespace) else {
                throw ProxyConfigurationError("presets line \(number + 1): expected name=options")
            }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces)
            let options = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard definitions[name] == nil else {
                throw ProxyConfigurationError("presets line \(number + 1): preset \"\(name)\" is defined twice")
            }
            definitions[name] = options.split(separator: "/").map(String.init)
            lines[name] = number + 1
        }
        let presets = ProxyPresets(definitions: definitions)
        for (name, segments) in definitions.sorted(by: { lines[$0.key]! < lines[$1.key]! }) {
            do {
                try check(presets, name, segments)
            } catch {
                throw ProxyConfigurationError("presets line \(lines[name]!): \(error.reason)")
            }
        }
        self.definitions = definitions
    }
}
