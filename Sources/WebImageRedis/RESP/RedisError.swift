/// Why a Redis command did not get an answer. The cache tier never passes these to its callers: they make it a
/// miss and count against its circuit breaker.
public enum RedisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server could not be reached, or the connection closed before the answer arrived.
    case connectionFailed(String)
    /// The server refused the credentials (`WRONGPASS`, `NOAUTH`) or the database number.
    case authenticationFailed(String)
    /// No answer within the command timeout.
    case timeout
    /// The server sent bytes that are not RESP.
    case protocolViolation(String)
    /// The server answered with an error reply (`-ERR …`, `-OOM …`).
    case serverError(String)
    /// The circuit breaker is open, or reconnecting is backing off: no command was sent.
    case unavailable(String)
    /// The URL is not a `redis://` or `rediss://` URL this client understands.
    case invalidURL(String)

    public var description: String {
        switch self {
        case .connectionFailed(let reason): "cannot reach Redis: \(reason)"
        case .authenticationFailed(let reason): "Redis refused the credentials: \(reason)"
        case .timeout: "Redis did not answer in time"
        case .protocolViolation(let reason): "Redis sent something that is not RESP: \(reason)"
        case .serverError(let message): "Redis answered with an error: \(message)"
        case .unavailable(let reason): "Redis is not being asked: \(reason)"
        case .invalidURL(let reason): "not a Redis URL: \(reason)"
        }
    }
}
