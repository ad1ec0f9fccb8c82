import Foundation

/// One request of a load as the HTTP loader is about to send it: the first, or one after a redirect. A
/// ``HTTPImageLoader/Configuration/hopCheck`` sees each hop and may refuse it.
package struct HTTPHop: Sendable {
    /// The URL this hop requests.
    package let url: URL
    /// The address the loader will connect to for it: the host itself when it is an IP literal, else the
    /// resolver's answer that passed the ``AddressPolicy``.
    package let address: IPAddress
    /// 0 for the request itself, 1 after the first redirect, and so on.
    package let index: Int

    /// A hop (the loader makes these; tests and custom checks may too).
    package init(url: URL, address: IPAddress, index: Int) {
        self.url = url
        self.address = address
        self.index = index
    }
}

/// What a hop check decides.
package enum HTTPHopDecision: Sendable, Equatable {
    /// Send the request.
    case allow
    /// Do not send it; the load fails with `ImageError.Code.destinationRefused` and this reason.
    case refuse(String)
}

/// A check run before every hop of every load; it must be quick (it runs on the load's task).
package typealias HTTPHopCheck = @Sendable (HTTPHop) -> HTTPHopDecision
