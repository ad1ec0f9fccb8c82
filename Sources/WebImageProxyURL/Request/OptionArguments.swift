import WebImageCore

/// One option segment split at `:` into its name and arguments, with readers that turn an argument into a value
/// or a 400 naming the option. An empty argument is an omitted one (imgproxy's `rs:fill::300`).
package struct OptionArguments {
    package let name: String
    private let arguments: [Substring]

    package init(_ segment: String) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false)
        name = String(parts[0])
        arguments = Array(parts.dropFirst())
    }

    /// The non-empty arguments, in order.
    package var all: [String] { arguments.filter { !$0.isEmpty }.map(String.init) }

    /// Whether argument `index` is given.
    package func has(_ index: Int) -> Bool { index < arguments.count && !arguments[index].isEmpty }

    /// Refuses more than `count` arguments.
    package func allow(at count: Int) throws(ProxyError) {
        guard arguments.count <= count else {
            throw .invalidURL("\(name) takes at most \(count) argument\(count == 1 ? "" : "s"), not \(arguments.count)")
        }
    }

    /// `value`, or a 400 saying that the option lacks an argument.
    package func required<Value>(_ value: Value?) throws(ProxyError) -> Value {
        guard let value else { throw .invalidURL("\(name) is missing its argument") }
        return value
    }

    package func text(_ index: Int) -> String? { has(index) ? String(arguments[index]) : nil }

    package func integer(_ index: Int, in range: ClosedRange<Int>) throws(ProxyError) -> Int? {
        guard let text = text(index) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw .invalidURL("\(name): \"\(text.prefix(20))\" is not a whole number in \(range)")
        }
        return value
    }

    package func number(_ index: Int, in range: ClosedRange<Double>) throws(ProxyError) -> Double? {
        guard let text = text(index) else { return nil }
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw .invalidURL("\(name): \"\(text.prefix(20))\" is not a number in \(range)")
        }
        return value
    }

    /// `expires`' one argument, a Unix time; `nil` for 0 or below, imgproxy's "never".
    package func expiry() throws(ProxyError) -> Int? {
        try allow(at: 1)
        let timestamp = try required(integer(0, in: Int(Int64.min)...Int(Int64.max)))
        return timestamp > 0 ? timestamp : nil
    }

    /// A width or height in pixels: 0 (follow the other side) to 16 384.
    package func dimension(_ index: Int) throws(ProxyError) -> Int? {
        try integer(index, in: 0...Self.maximumDimension)
    }

    /// The largest width or height a URL may ask for, in CSS pixels.
    package static let maximumDimension = 16_384

    /// A crop side: absolute pixels (≥ 1), a fraction (< 1) or 0 (all).
    package func cropSide(_ index: Int) throws(ProxyError) -> Double? { try number(index, in: 0...1_000_000) }

    /// A boolean as imgproxy reads one (Go's spellings: `1`, `t`, `T`, `true`, `TRUE`, `True` and the same for
    /// false); any other text is false, as imgproxy treats it. `nil` when the argument is not given.
    package func bool(_ index: Int) -> Bool? {
        guard let text = text(index) else { return nil }
        return ["1", "t", "T", "true", "TRUE", "True"].contains(text)
    }

    /// A number above 0 and at most `limit`.
    package func positiveNumber(_ index: Int, upTo limit: Double) throws(ProxyError) -> Double? {
        guard let value = try number(index, in: 0...limit) else { return nil }
        guard value > 0 else { throw .invalidURL("\(name): the value must be above 0") }
        return value
    }

    package func resizingType(_ index: Int) throws(ProxyError) -> ProcessingOptions.ResizingType? {
        guard let text = text(index) else { return nil }
        guard let type = ProcessingOptions.ResizingType(rawValue: text) else {
            throw .invalidURL(
                "\(name): resizing type \"\(text.prefix(20))\" is not fit, fill, fill-down, force or auto")
        }
        return type
    }

    /// `ENABLED[:GRAVITY[:X:Y]]` from argument `index` on (`extend`, `extend_aspect_ratio`, and the tail of
    /// `size`): the gravity that places the image when extending is on (the centre by default), `nil` when off.
    package func extend(from index: Int) throws(ProxyError) -> Gravity? {
        try allow(at: index + 4)
        let placement = has(index + 1) ? try gravity(from: index + 1) : .center
        guard placement.anchor != .smart else { throw .invalidURL("\(name): extending takes no smart gravity") }
        return bool(index) == true ? placement : nil
    }

    /// A hex colour (`RGB` or `RRGGBB`) at `index`, `nil` when not given.
    package func hexColor(_ index: Int) throws(ProxyError) -> RGBA? {
        guard let text = text(index) else { return nil }
        let expanded = text.count == 3 ? text.map { "\($0)\($0)" }.joined() : text
        guard expanded.count == 6, let color = RGBA(hex: expanded) else {
            throw .invalidURL("\(name): \"\(text.prefix(20))\" is not a hex colour")
        }
        return color
    }

    /// `TYPE[:X:Y]` from argument `index` on; `sm` takes no offsets, `fp` takes its centre as fractions.
    package func gravity(from index: Int) throws(ProxyError) -> Gravity {
        guard let text = text(index) else { throw .invalidURL("\(name) is missing its gravity type") }
        guard let anchor = Gravity.Anchor(rawValue: text) else {
            throw .invalidURL(
                "\(name): gravity \"\(text.prefix(20))\" is not ce, no, so, ea, we, noea, nowe, soea, sowe, sm or fp")
        }
        switch anchor {
        case .smart:
            try allow(at: index + 1)
            return Gravity(.smart)
        case .focusPoint:
            guard arguments.count == index + 3 else { throw .invalidURL("\(name): fp takes an x and a y") }
            let x = try required(number(index + 1, in: 0...1)), y = try required(number(index + 2, in: 0...1))
            return Gravity(.focusPoint, x: x, y: y)
        default:
            try allow(at: index + 3)
            let limit = 1_000_000.0
            return Gravity(anchor, x: try number(index + 1, in: -limit...limit) ?? 0,
                           y: try number(index + 2, in: -limit...limit) ?? 0)
        }
    }

    /// `R:G:B` (0–255 each) or one hex colour (`RGB` or `RRGGBB`) from argument `index`; none at all is `nil`.
    package func color(from index: Int) throws(ProxyError) -> RGBA? {
        try allow(at: index + 3)
        guard has(index) else { return nil }
        if arguments.count == index + 3 {
            let channels = try (index..<index + 3).map { i throws(ProxyError) in try required(integer(i, in: 0...255)) }
            return RGBA(UInt8(channels[0]), UInt8(channels[1]), UInt8(channels[2]))
        }
        guard arguments.count == index + 1 else { throw .invalidURL("\(name) takes R:G:B or one hex colour") }
        return try hexColor(index)
    }
}
