import Foundation

/// Picks an output format from a request's `Accept` header when the URL names none and the server was started with
/// `--auto-avif` and/or `--auto-webp`.
///
/// Only types the header names explicitly count (with a `q` above 0): browsers that decode AVIF or WebP say so, and
/// `*/*` or `image/*` proves nothing about a client. AVIF wins over WebP when both are allowed and accepted.
public struct FormatNegotiation: Sendable, Hashable {
    /// Whether AVIF is offered to clients that accept it.
    public var offersAVIF: Bool
    /// Whether WebP is offered to clients that accept it.
    public var offersWebP: Bool

    /// Negotiation offering the formats switched on.
    public init(offersAVIF: Bool, offersWebP: Bool) {
        self.offersAVIF = offersAVIF
        self.offersWebP = offersWebP
    }

    /// Whether answers depend on `Accept` at all, so that responses must say `Vary: Accept`.
    public var dependsOnAccept: Bool { offersAVIF || offersWebP }

    /// The format for a client sending `accept`, or `nil` to keep the default (the source's format).
    public func format(forAccept accept: String?) -> OutputFormat? {
        formats(forAccept: accept).first
    }

    /// Every offered format a client sending `accept` takes, AVIF first: the candidates `format:best` adds to the
    /// preferred formats.
    public func formats(forAccept accept: String?) -> [OutputFormat] {
        guard dependsOnAccept, let accept else { return [] }
        let accepted = Self.acceptedTypes(accept)
        var formats: [OutputFormat] = []
        if offersAVIF, accepted.contains("image/avif") { formats.append(.avif) }
        if offersWebP, accepted.contains("image/webp") { formats.append(.webp) }
        return formats
    }

    /// The media types of an `Accept` header whose quality is above 0, lowercased, parameters dropped.
    package static func acceptedTypes(_ accept: String) -> Set<String> {
        var types = Set<String>()
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";")
            guard let type = parts.first?.trimmingCharacters(in: .whitespaces).lowercased(), !type.isEmpty
            else { continue }
            let quality = parts.dropFirst().lazy
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.hasPrefix("q=") || $0.hasPrefix("Q=") }
                .flatMap { Double($0.dropFirst(2)) } ?? 1
            if quality > 0 { types.insert(type) }
        }
        return types
    }
}
