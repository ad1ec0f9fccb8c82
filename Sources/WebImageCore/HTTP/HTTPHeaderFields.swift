import Foundation

/// An ordered list of HTTP header fields whose names compare case-insensitively, as HTTP says they do.
///
/// A small value type of our own so that the public API does not expose SwiftNIO's types.
public struct HTTPHeaderFields: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// The fields in the order they were added, names as given.
    public private(set) var fields: [(name: String, value: String)]

    /// An empty list.
    public init() { fields = [] }

    /// A list holding `fields` in order.
    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value for `name` (any letter case), or `nil`. Setting a value replaces every field of that name;
    /// setting `nil` removes them.
    public subscript(name: String) -> String? {
        get { fields.first { Self.same($0.name, name) }?.value }
        set {
            guard let newValue else {
                remove(name)
                return
            }
            if let index = fields.firstIndex(where: { Self.same($0.name, name) }) {
                fields[index].value = newValue
                var keptFirst = false
                fields.removeAll { field in
                    guard Self.same(field.name, name) else { return false }
                    defer { keptFirst = true }
                    return keptFirst
                }
            } else {
                fields.append((name: name, value: newValue))
            }
        }
    }

    /// Every value given for `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.same($0.name, name) }.map(\.value)
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.same($0.name, name) }
    }

    /// Adds a field after the others, keeping any earlier field of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.same($0.name, name) }
    }

    /// Sets every field of `other` here, replacing fields of the same names.
    public mutating func merge(_ other: HTTPHeaderFields) {
        for name in other.names { self[name] = nil }
        fields.append(contentsOf: other.fields)
    }

    /// The distinct names present, lowercased, in first-seen order.
    public var names: [String] {
        var seen: Set<String> = []
        return fields.compactMap { seen.insert($0.name.lowercased()).inserted ? $0.name.lowercased() : nil }
    }

    /// Whether no field is present.
    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// A canonical form for comparing requests: names lowercased, fields sorted by name then value.
    package var canonical: [String] {
        fields.map { "\($0.name.lowercased()):\($0.value)" }.sorted()
    }

    public static func == (lhs: HTTPHeaderFields, rhs: HTTPHeaderFields) -> Bool {
        lhs.canonical == rhs.canonical
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(canonical)
    }

    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: ", ")
    }

    /// ASCII case-insensitive equality: header names are ASCII tokens, and Foundation's locale-aware comparison
    /// showed up in profiles of the download path.
    private static func same(_ a: String, _ b: String) -> Bool {
        let left = a.utf8, right = b.utf8
        guard left.count == right.count else { return false }
        return zip(left, right).allSatisfy { lowercase($0) == lowercase($1) }
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}

extension StringProtocol {
    /// The text without the spaces and tabs HTTP allows around a field value or its parts (RFC 9110's OWS),
    /// read without Foundation: it runs on every response's Content-Length and Content-Type.
    package func trimmingHTTPWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
