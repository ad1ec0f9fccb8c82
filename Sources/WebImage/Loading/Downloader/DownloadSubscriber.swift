import Foundation

/// Receives the result of one download.
package typealias DownloadCompletion = @Sendable (Result<ImageLoadResponse, ImageError>) -> Void

/// One caller of a shared transfer: its callbacks, its options and a serial mailbox that delivers its progress
/// reports and its single completion in order, without a lock held while user code runs. Whoever posts first
/// drains; a caller that cancels from inside its own progress callback has its completion delivered right after
/// that callback returns. After the completion nothing more is delivered.
final class DownloadSubscriber: Sendable {
    enum Event: Sendable {
        case progress(ImageLoadProgress)
        case completion(Result<ImageLoadResponse, ImageError>)
    }

    private struct Mailbox {
        var pending: [Event] = []
        var draining = false
        var completed = false
        var lastFraction: Double?
    }

    let wantsPartialData: Bool
    let minimumProgressInterval: Double
    let hooks: TransferHooks
    private let progressHandler: ImageLoadProgressHandler?
    private let completion: DownloadCompletion
    private let mailbox = Locked(Mailbox())

    init(wantsPartialData: Bool, minimumProgressInterval: Double, hooks: TransferHooks,
         progress: ImageLoadProgressHandler?, completion: @escaping DownloadCompletion) {
        self.wantsPartialData = wantsPartialData
        self.minimumProgressInterval = minimumProgressInterval
        self.hooks = hooks
        progressHandler = progress
        self.completion = completion
    }

    /// Whether this caller gets progress reports at all.
    var wantsProgress: Bool { progressHandler != nil }

    /// Queues a progress report, dropping it if it is too close to the last one delivered.
    func post(progress: ImageLoadProgress) {
        guard progressHandler != nil else { return }
        var report = progress
        if !wantsPartialData { report.partialData = nil }
        let interval = minimumProgressInterval
        post(.progress(report)) { mailbox in
            guard interval > 0, let fraction = report.fractionCompleted else { return true }
            if fraction < 1, let last = mailbox.lastFraction, fraction - last < interval { return false }
            mailbox.lastFraction = fraction
            return true
        }
    }

    /// Queues the completion after this caller's own response modifier and decryptor ran on a success.
    func post(result: Result<ImageLoadResponse, ImageError>) {
        post(.completion(result.flatMap(hooks.apply))) { mailbox in
            mailbox.completed = true
            return true
        }
    }

    /// Whether the completion has been queued.
    var isCompleted: Bool { mailbox.withLock { $0.completed } }

    private func post(_ event: Event, admit: (inout Mailbox) -> Bool) {
        let mustDrain = mailbox.withLock { mailbox -> Bool in
            guard !mailbox.completed, admit(&mailbox) else { return false }
            mailbox.pending.append(event)
            guard !mailbox.draining else { return false }
            mailbox.draining = true
            return true
        }
        guard mustDrain else { return }
        while let next = mailbox.withLock({ mailbox -> Event? in
            guard !mailbox.pending.isEmpty else {
                mailbox.draining = false
                return nil
            }
            return mailbox.pending.removeFirst()
        }) {
            switch next {
            case .progress(let report): progressHandler?(report)
            case .completion(let result): completion(result)
            }
        }
    }
}
