/// The proxy's work in flight, for `/metrics` and for checking that everything returned to zero.
struct ProxyLoad: Sendable, Equatable {
    /// Results being made (each however many requests wait for it).
    var renders: Int
    /// Renders holding a CPU slot.
    var rendering: Int
    /// Renders waiting for a CPU slot.
    var queued: Int
    /// Source downloads holding a transfer slot.
    var downloading: Int
    /// Source downloads waiting for one.
    var downloadsQueued: Int
    /// Renders whose source a decode helper is decoding (they hold no render slot meanwhile).
    var helperDecodes: Int
    /// Renders waiting for a decode helper.
    var helperDecodesQueued: Int

    /// Nothing in flight.
    static let idle = ProxyLoad(renders: 0, rendering: 0, queued: 0, downloading: 0, downloadsQueued: 0,
                                helperDecodes: 0, helperDecodesQueued: 0)
}
