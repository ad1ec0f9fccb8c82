/// Host names' addresses as a loader resolved them, kept for their time to live so that a server fetching from
/// a handful of origins does not pay a resolver round trip per fetch: a name server's answer for the smallest TTL
/// of its records (at most an hour; TTL 0, as a rebinding attacker's server answers, is never kept), the system
/// resolver's (which tells no TTL) for ``systemResolverLifetime``, and a failure to resolve for the loader's
/// `failedLookupLifetime`, so a dead name does not cost every request a lookup either.
///
/// What is kept is what the lookup returned; every use still checks each address against the address policy and
/// connects to the address it checked, so a kept answer cannot be turned into another destination.
final class ResolvedHosts: Sendable {
    /// How long the system resolver's answers are kept (it does not tell their TTL).
    static let systemResolverLifetime: Duration = .seconds(30)
    /// The longest any answer is kept, whatever its TTL.
    static let longestLifetime: Duration = .seconds(3_600)

    enum Outcome: Sendable, Equatable {
        case addresses([IPAddress])
        case failure(String)
    }

    private struct Entry {
        let outcome: Outcome
        let expires: ContinuousClock.Instant
    }

    private let entries = Locked<[String: Entry]>([:])
    /// How many names are kept at most: beyond it, expired entries go, then the ones closest to expiring.
    let limit: Int

    init(limit: Int = 1_024) {
        self.limit = limit
    }

    /// The kept outcome for `host` (already lower-cased), if it has not expired at `now`.
    func outcome(for host: String, now: ContinuousClock.Instant = .now) -> Outcome? {
        entries.withLock { entries in
            guard let entry = entries[host] else { return nil }
            guard entry.expires > now else {
                entries[host] = nil
                return nil
            }
            return entry.outcome
        }
    }

    /// Keeps `outcome` for `host` for `lifetime` (capped at ``longestLifetime``); a lifetime of zero keeps nothing.
    func keep(_ outcome: Outcome, for host: String, lifetime: Duration, now: ContinuousClock.Instant = .now) {
        let lifetime = min(lifetime, Self.longestLifetime)
        guard lifetime > .zero else { return }
        entries.withLock { entries in
            if entries[host] == nil, entries.count >= limit {
                entries = entries.filter { $0.value.expires > now }
                while entries.count >= limit, let soonest = entries.min(by: { $0.value.expires < $1.value.expires }) {
                    entries[soonest.key] = nil
                }
            }
            entries[host] = Entry(outcome: outcome, expires: now + lifetime)
        }
    }

    /// How many names are kept now (expired ones included until they are looked up or pushed out).
    var count: Int { entries.withLock { $0.count } }
}
