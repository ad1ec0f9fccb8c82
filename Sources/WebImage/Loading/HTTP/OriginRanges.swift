import Foundation

/// What the loader knows of each origin, for early stops: whether its last answer said `Accept-Ranges: bytes`,
/// and how its recent early stops ended. Kept for a bounded number of origins; an origin not known is fetched
/// plainly once (and its answer teaches).
///
/// Ranges pay where early stops stop early (progressive JPEGs made into thumbnails, first frames, headers): the
/// origin sends only the prefix and the connection is kept. Where the decode reads whole files (baseline JPEGs made
/// into thumbnails), each ranged fetch is two requests, the first range and then the rest, where a plain fetch is
/// one. So an origin whose last early stops all read the whole file is fetched plainly until one stops early again
/// (a plain fetch that stops early closes its connection, the cost ranges avoid, and turns ranges back on).
final class OriginRanges: Sendable {
    /// How many early stops in a row must read the whole file before the origin is fetched plainly.
    static let wholeReadsBeforePlainFetches = 2

    private struct Knowledge {
        var servesRanges: Bool
        /// The origin's early stops that read the whole file since the last one that stopped early, counted up to
        /// the number that turns ranges off.
        var wholeReadsInARow = 0
    }

    private let known = Locked<[Origin: Knowledge]>([:])
    private let limit: Int

    init(limit: Int = 1_024) {
        self.limit = limit
    }

    /// Whether an early stop from `origin` is fetched by ranges: it serves them, and its early stops stop early.
    func fetchesEarlyStopsByRanges(_ origin: Origin) -> Bool {
        known.withLock { known in
            guard let knowledge = known[origin] else { return false }
            return knowledge.servesRanges && knowledge.wholeReadsInARow < Self.wholeReadsBeforePlainFetches
        }
    }

    /// Notes what an answer from `origin` said.
    func note(_ origin: Origin, servesRanges: Bool) {
        update(origin) { $0.servesRanges = servesRanges }
    }

    /// Notes how an early stop from `origin` ended: stopped early, or found it reads the whole file.
    func noteEarlyStop(_ origin: Origin, stoppedEarly: Bool) {
        update(origin) { knowledge in
            knowledge.wholeReadsInARow = stoppedEarly ? 0
                : min(knowledge.wholeReadsInARow + 1, Self.wholeReadsBeforePlainFetches)
        }
    }

    private func update(_ origin: Origin, _ change: (inout Knowledge) -> Void) {
        known.withLock { known in
            if known[origin] == nil, known.count >= limit { known.removeAll(keepingCapacity: true) }
            change(&known[origin, default: Knowledge(servesRanges: false)])
        }
    }
}
