import Foundation

/// When and how often a failed transfer is tried again. Only transient failures are retried: connection
/// failures (refused, reset, truncated bodies), timeouts and 5xx responses; never a 4xx, a bad body or a
/// cancellation. A broken body is resumed with `Range` + `If-Range` when the server sent a validator.
public struct RetryPolicy: Sendable, Equatable {
    /// Extra attempts after the first (0 turns retrying off).
    public var maximumRetries: Int
    /// The wait before the first retry.
    public var initialDelay: Duration
    /// How much each wait grows over the previous one.
    public var multiplier: Double
    /// The longest wait.
    public var maximumDelay: Duration
    /// A random fraction (0…1) of each wait added or taken away so many clients do not retry in step.
    public var jitter: Double
    /// Whether a broken body continues from where it stopped instead of starting over.
    public var resumesInterruptedTransfers: Bool
    /// Whether an attempt that timed out is tried again (each retry then gets the whole timeout anew). A server
    /// whose timeout bounds the whole download turns this off: an origin that dribbles would otherwise hold a
    /// transfer for `maximumRetries + 1` timeouts.
    public var retriesTimeouts = true
    /// Whether a refused connection is tried again: worth it for a server that restarts, not for one that a
    /// client's URL names at random (``ImageDownloaderConfiguration/server`` turns it off).
    public var retriesRefusedConnections = true

    /// Creates a policy (defaults: 2 retries after 0.2 s and 0.4 s, ±20 % jitter, resuming on).
    public init(maximumRetries: Int = 2, initialDelay: Duration = .milliseconds(200), multiplier: Double = 2,
                maximumDelay: Duration = .seconds(5), jitter: Double = 0.2, resumesInterruptedTransfers: Bool = true) {
        self.maximumRetries = max(0, maximumRetries)
        self.initialDelay = initialDelay
        self.multiplier = max(1, multiplier)
        self.maximumDelay = maximumDelay
        self.jitter = min(1, max(0, jitter))
        self.resumesInterruptedTransfers = resumesInterruptedTransfers
    }

    /// No retries.
    public static let none = RetryPolicy(maximumRetries: 0)

    /// Whether a failure with `error` (and the HTTP status the server sent, if any) is worth another attempt.
    public func isTransient(_ error: ImageError, statusCode: Int?) -> Bool {
        switch error.code {
        case .connectionFailed:
            return true
        case .connectionRefused:
            return retriesRefusedConnections
        case .timedOut:
            return retriesTimeouts
        case .invalidDownloadStatusCode:
            guard let statusCode else { return false }
            return (500...599).contains(statusCode)
        default:
            return false
        }
    }

    /// The wait before retry number `retry` (1-based), before jitter.
    public func baseDelay(beforeRetry retry: Int) -> Duration {
        let factor = pow(multiplier, Double(max(0, retry - 1)))
        let seconds = Self.seconds(initialDelay) * factor
        return .seconds(min(seconds, Self.seconds(maximumDelay)))
    }

    /// The wait before retry number `retry`, with jitter drawn from `random` (0…1).
    func delay(beforeRetry retry: Int, random: Double = Double.random(in: 0...1)) -> Duration {
        let base = Self.seconds(baseDelay(beforeRetry: retry))
        let spread = base * jitter * (random * 2 - 1)
        return .seconds(max(0, base + spread))
    }

    static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
