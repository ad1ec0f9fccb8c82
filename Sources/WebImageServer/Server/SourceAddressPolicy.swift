import WebImage

extension SourcePolicy {
    /// The addresses source downloads may connect to under `configuration`'s three switches, imgproxy's three:
    /// only public addresses, plus loopback (with the unspecified `0.0.0.0` and `::`, which reach this machine
    /// as well, as imgproxy counts them), private and link-local addresses each when its own switch is on.
    /// Multicast stays refused whatever they say: no image is fetched over it.
    static func addressPolicy(for configuration: ProxyConfiguration) -> AddressPolicy {
        var refused = AddressPolicy.publicOnly.refused
        if configuration.allowsLoopbackSources { refused.subtract([.loopback, .unspecified]) }
        if configuration.allowsPrivateSources { refused.remove(.private) }
        if configuration.allowsLinkLocalSources { refused.remove(.linkLocal) }
        return AddressPolicy(refusing: refused)
    }
}
