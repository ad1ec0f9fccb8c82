import Foundation

/// One caller's handle on a download. Cancelling it ends only this caller (with
/// `ImageError.Code.cancelled`); the transfer stops when its last caller cancels.
public final class DownloadToken: Sendable {
    /// The URL asked for.
    public let url: URL
    private let cancellation: (@Sendable () -> Void)?

    init(url: URL, cancellation: (@Sendable () -> Void)?) {
        self.url = url
        self.cancellation = cancellation
    }

    /// Ends this caller's download. Does nothing if it already completed.
    public func cancel() {
        cancellation?()
    }
}
