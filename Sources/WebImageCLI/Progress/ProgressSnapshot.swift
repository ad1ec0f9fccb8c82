/// Where a batch of loads stands at one moment: what the progress bar draws.
struct ProgressSnapshot: Equatable, Sendable {
    /// Images finished (successfully or not).
    var completedImages: Int
    /// Images asked for.
    var totalImages: Int
    /// Body bytes received so far, over every load.
    var receivedBytes: Int64
    /// The sum of the announced body lengths, when every started load announced one; `nil` otherwise.
    var expectedBytes: Int64?
    /// Whether ``expectedBytes`` counts every image of the batch (each has started and announced a length).
    var bytesCoverEveryImage = false
    /// Seconds since the batch started.
    var elapsedSeconds: Double

    /// How much is done, 0…1: by bytes when every length is known and every image has started, else by images.
    var fractionCompleted: Double {
        if let expectedBytes, expectedBytes > 0, completedImages < totalImages, bytesCoverEveryImage {
            return min(1, max(0, Double(receivedBytes) / Double(expectedBytes)))
        }
        guard totalImages > 0 else { return 1 }
        return min(1, Double(completedImages) / Double(totalImages))
    }

    /// Bytes per second so far; `nil` before any time has passed.
    var bytesPerSecond: Double? {
        elapsedSeconds > 0 ? Double(receivedBytes) / elapsedSeconds : nil
    }

    /// Seconds left at the rate so far; `nil` until something is done (or when everything is).
    var secondsLeft: Double? {
        let fraction = fractionCompleted
        guard fraction > 0, fraction < 1, elapsedSeconds > 0 else { return nil }
        return elapsedSeconds * (1 - fraction) / fraction
    }
}
