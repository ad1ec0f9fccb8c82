import Foundation

/// What happens to transfers, in order per transfer (SDWebImage's start / receive-response / stop / finish
/// notifications).
public enum DownloadEvent: Sendable, Equatable {
    /// A transfer left the queue and started.
    case started(URL)
    /// The response head arrived.
    case receivedResponse(URL, statusCode: Int)
    /// The transfer ended (finished, failed or cancelled).
    case stopped(URL)
    /// The transfer finished: `nil` on success, else the failure's code.
    case finished(URL, error: ImageError.Code?)
}
