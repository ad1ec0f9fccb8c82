import Foundation
import TestImageServer
import Testing

/// How long a test waits for something that should happen soon before calling it a failure. Never a timing
/// assertion: the wait ends as soon as the condition holds; the limit only turns a would-be hang into a failure
/// with a location, so one broken test cannot stall the whole run.
let eventualityLimit: Duration = .seconds(60)

extension TestImageServer {
    /// Waits until `condition` holds for the server's log; records an issue if it still does not after
    /// ``eventualityLimit``.
    func expectEventually(sourceLocation: SourceLocation = #_sourceLocation,
                          _ condition: @escaping @Sendable (ServerLog) -> Bool) async {
        let held = await waitUntil(timeout: eventualityLimit, condition)
        if !held {
            Issue.record("the server's log never met the condition; requests: \(log.paths)",
                         sourceLocation: sourceLocation)
        }
    }
}

extension TestImageServer {
    /// Waits until the client has abandoned `path`: every connection closed, and the request logged as cut off by
    /// the client. On a loaded machine a client's timeout can fire before the server even reads the request; then
    /// the request may never be logged at all, which is as good (nothing is left open).
    func expectAbandoned(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        await expectEventually(sourceLocation: sourceLocation) { log in
            log.openConnections == 0 && (log.count(path) == 0 || log.clientClosedPaths.contains(path))
        }
    }
}

/// Waits until `condition` holds, looking again every millisecond; records an issue if it still does not after
/// ``eventualityLimit`` of time this waiter was awake to look.
///
/// Time the process spent unable to run the waiter does not count: when every thread of the cooperative pool is
/// busy with other tests (two cores, and several times slower under a sanitizer), a 1 ms sleep can end a minute
/// late, and the work the condition waits for was starved just as long. Counting that minute would fail a test for
/// its neighbours' sake.
func expectEventually(isolation: isolated (any Actor)? = #isolation,
                      sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool) async {
    var budget = AwakeTimeBudget(limit: eventualityLimit)
    while !condition() {
        guard budget.remains() else {
            Issue.record("the condition never held", sourceLocation: sourceLocation)
            return
        }
        try? await Task.sleep(for: .milliseconds(1))
    }
}
