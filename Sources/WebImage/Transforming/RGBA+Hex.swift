extension RGBA {
    /// `#rrggbbaa` in lower case, as in transformer keys.
    public var hexString: String { TransformerKeyFormat.color(self) }
}
