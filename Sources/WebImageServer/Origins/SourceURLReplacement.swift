/// One of imgproxy's URL replacements (`IMGPROXY_URL_REPLACEMENTS`): a source URL that starts with `pattern` has
/// that start replaced by `replacement`. In the pattern, `*` stands for any characters but `/` (as few as still let
/// the rest of the pattern match after taking as many as it can, as a greedy `([^/]*)` does); in the replacement,
/// `${N}` or `$N` is what the N-th `*` matched, `$$` is a `$`, and a reference to nothing is empty. This is the
/// meaning imgproxy gives them (a prefix regular expression and Go's template expansion), so a deployment's
/// replacements rewrite the same URLs the same way here.
public struct SourceURLReplacement: Sendable, Equatable {
    /// The pattern as written, `*` included.
    public let pattern: String
    /// The replacement as written, `${N}` included.
    public let replacement: String
    /// The pattern's literal parts, between its wildcards: one more than there are `*`.
    private let literals: [[UInt8]]

    /// A replacement of URLs starting with `pattern` by `replacement`.
    public init(pattern: String, replacement: String) {
        self.pattern = pattern
        self.replacement = replacement
        literals = pattern.split(separator: "*", omittingEmptySubsequences: false).map { Array($0.utf8) }
    }

    /// Replacements written as imgproxy's variable takes them: `pattern=replacement` pairs divided by `;`, each
    /// split at its first `=`.
    /// - Throws: `ProxyConfigurationError` naming the first item without an `=` (an empty item too, as in
    ///   imgproxy).
    public static func list(_ text: String) throws(ProxyConfigurationError) -> [SourceURLReplacement] {
        try text.split(separator: ";", omittingEmptySubsequences: false).map { item throws(ProxyConfigurationError) in
            try pair(String(item))
        }
    }

    /// One `pattern=replacement` pair, split at its first `=`.
    /// - Throws: `ProxyConfigurationError` when there is no `=`.
    public static func pair(_ text: String) throws(ProxyConfigurationError) -> SourceURLReplacement {
        guard let equals = text.firstIndex(of: "=") else {
            throw ProxyConfigurationError("\"\(text)\" is not a pattern=replacement pair")
        }
        return SourceURLReplacement(pattern: String(text[..<equals]),
                                    replacement: String(text[text.index(after: equals)...]))
    }

    /// `url` with its start replaced when the pattern matches it; otherwise `url` unchanged.
    public func applied(to url: String) -> String {
        let bytes = Array(url.utf8)
        guard bytes.starts(with: literals[0]) else { return url }
        var captures: [Range<Int>] = []
        guard let end = match(bytes, literal: 1, from: literals[0].count, captures: &captures) else { return url }
        var result = expanded(captures: captures.map { String(decoding: bytes[$0], as: UTF8.self) })
        result += String(decoding: bytes[end...], as: UTF8.self)
        return result
    }

    /// Where the match ends, when the wildcard before `literals[literal]` and everything after it match from
    /// `start`. Each wildcard takes as many characters as it can and gives them back one by one until the rest
    /// matches: the first match a greedy regular expression finds. Slashes bound each wildcard, so the search is
    /// at most the length of one path segment per wildcard.
    private func match(_ bytes: [UInt8], literal: Int, from start: Int, captures: inout [Range<Int>]) -> Int? {
        guard literal < literals.count else { return start }
        var longest = start
        while longest < bytes.count, bytes[longest] != UInt8(ascii: "/") { longest += 1 }
        let next = literals[literal]
        for end in stride(from: longest, through: start, by: -1) where bytes[end...].starts(with: next) {
            captures.append(start..<end)
            if let matched = match(bytes, literal: literal + 1, from: end + next.count, captures: &captures) {
                return matched
            }
            captures.removeLast()
        }
        return nil
    }

    /// The replacement with its references to `captures` filled in, as Go's `Regexp.Expand` fills them: `$$` is
    /// `$`; `$name` takes the longest run of letters, digits and `_`, `${name}` what is inside the braces; a name
    /// that is a number without a leading zero is the capture of that number (the whole match is 0, which a
    /// prefix replacement does not need but Go allows); any other name is empty; a `$` that starts no reference
    /// is kept as written.
    private func expanded(captures: [String]) -> String {
        var result = ""
        var rest = Substring(replacement)
        while let dollar = rest.firstIndex(of: "$") {
            result += rest[..<dollar]
            rest = rest[rest.index(after: dollar)...]
            if rest.first == "$" {
                result += "$"
                rest = rest.dropFirst()
                continue
            }
            guard let (name, after) = Self.reference(in: rest) else {
                result += "$"
                continue
            }
            rest = after
            if let number = Self.groupNumber(name) {
                if number == 0 {
                    result += wholeMatch(captures)
                } else if number <= captures.count {
                    result += captures[number - 1]
                }
            }
        }
        return result + rest
    }

    /// The whole text the pattern matched: its literals with the captures between them.
    private func wholeMatch(_ captures: [String]) -> String {
        var text = String(decoding: literals[0], as: UTF8.self)
        for (index, capture) in captures.enumerated() {
            text += capture + String(decoding: literals[index + 1], as: UTF8.self)
        }
        return text
    }

    /// The name a reference after `$` gives and the text after it; `nil` when it is malformed (no name, or a
    /// brace that is not closed right after the name).
    private static func reference(in text: Substring) -> (name: Substring, rest: Substring)? {
        let braced = text.first == "{"
        let start = braced ? text.index(after: text.startIndex) : text.startIndex
        let nameEnd = text[start...].firstIndex { !($0.isLetter || $0.isNumber || $0 == "_") } ?? text.endIndex
        guard nameEnd > start else { return nil }
        let name = text[start..<nameEnd]
        guard braced else { return (name, text[nameEnd...]) }
        guard nameEnd < text.endIndex, text[nameEnd] == "}" else { return nil }
        return (name, text[text.index(after: nameEnd)...])
    }

    /// The capture number a name stands for: decimal digits only, no leading zero, below 10⁸ (as Go reads it).
    private static func groupNumber(_ name: Substring) -> Int? {
        guard name.allSatisfy({ $0.isASCII && $0.isNumber }), name.count < 9,
              name == "0" || name.first != "0" else { return nil }
        return Int(name)
    }
}
