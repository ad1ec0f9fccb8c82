/// What an SVG answered as SVG may hold: the elements that draw (SVG 1.1 and 2) and the attributes that shape
/// them. Anything not listed is left out, so an element or attribute a browser learns tomorrow cannot run or load
/// anything from a sanitised document. Names are compared as written: SVG in XML is case-sensitive.
enum SVGAllowList {
    static let svgNamespace = "http://www.w3.org/2000/svg"
    static let xlinkNamespace = "http://www.w3.org/1999/xlink"

    /// Elements kept, by local name, when they are in the SVG namespace.
    static let elements: Set<String> = drawing.union(animationElements)

    /// Elements that draw or hold what is drawn.
    private static let drawing: Set<String> = [
        // Structure and grouping.
        "svg", "g", "defs", "symbol", "use", "image", "switch", "a", "view", "title", "desc", "metadata", "style",
        // Shapes and text.
        "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text", "tspan", "textPath",
        // Paint servers, clipping, masking, markers.
        "linearGradient", "radialGradient", "stop", "pattern", "clipPath", "mask", "marker",
        // Filters and their primitives.
        "filter", "feBlend", "feColorMatrix", "feComponentTransfer", "feComposite", "feConvolveMatrix",
        "feDiffuseLighting", "feDisplacementMap", "feDistantLight", "feDropShadow", "feFlood", "feFuncA", "feFuncB",
        "feFuncG", "feFuncR", "feGaussianBlur", "feImage", "feMerge", "feMergeNode", "feMorphology", "feOffset",
        "fePointLight", "feSpecularLighting", "feSpotLight", "feTile", "feTurbulence",
        // The path an `animateMotion` follows.
        "mpath",
    ]

    /// Elements that change another attribute over time: kept only when the attribute they change is one of
    /// ``animatable`` (an animation of `href` or of an event handler would run script).
    static let animationElements: Set<String> = ["animate", "animateMotion", "animateTransform", "set"]

    /// SVG's presentation attributes: how a shape is painted. Also what a `style` attribute sets.
    static let presentation: Set<String> = [
        "alignment-baseline", "baseline-shift", "clip", "clip-path", "clip-rule", "color", "color-interpolation",
        "color-interpolation-filters", "color-profile", "color-rendering", "cursor", "direction", "display",
        "dominant-baseline", "enable-background", "fill", "fill-opacity", "fill-rule", "filter", "flood-color",
        "flood-opacity", "font", "font-family", "font-size", "font-size-adjust", "font-stretch", "font-style",
        "font-variant", "font-weight", "glyph-orientation-horizontal", "glyph-orientation-vertical",
        "image-rendering", "isolation", "kerning", "letter-spacing", "lighting-color", "marker", "marker-end",
        "marker-mid", "marker-start", "mask", "mask-type", "mix-blend-mode", "opacity", "overflow", "paint-order",
        "pointer-events", "shape-rendering", "stop-color", "stop-opacity", "stroke", "stroke-dasharray",
        "stroke-dashoffset", "stroke-linecap", "stroke-linejoin", "stroke-miterlimit", "stroke-opacity",
        "stroke-width", "text-anchor", "text-decoration", "text-rendering", "transform-origin", "unicode-bidi",
        "vector-effect", "visibility", "word-spacing", "writing-mode",
    ]

    /// Where and how big things are: positions, sizes, paths, transforms and the units they are read in.
    static let geometry: Set<String> = [
        "x", "y", "width", "height", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "fx", "fy", "fr", "d",
        "points", "pathLength", "transform", "viewBox", "preserveAspectRatio", "refX", "refY", "markerWidth",
        "markerHeight", "markerUnits", "orient", "gradientUnits", "gradientTransform", "spreadMethod", "offset",
        "patternUnits", "patternContentUnits", "patternTransform", "clipPathUnits", "maskUnits",
        "maskContentUnits", "filterUnits", "primitiveUnits", "dx", "dy", "rotate", "textLength", "lengthAdjust",
        "startOffset", "method", "spacing", "side",
    ]

    /// Filter primitives' parameters.
    static let filterParameters: Set<String> = [
        "in", "in2", "result", "mode", "type", "values", "tableValues", "slope", "intercept", "amplitude",
        "exponent", "operator", "k1", "k2", "k3", "k4", "order", "kernelMatrix", "divisor", "bias", "targetX",
        "targetY", "edgeMode", "kernelUnitLength", "preserveAlpha", "surfaceScale", "diffuseConstant",
        "specularConstant", "specularExponent", "scale", "xChannelSelector", "yChannelSelector", "stdDeviation",
        "radius", "baseFrequency", "numOctaves", "seed", "stitchTiles", "azimuth", "elevation", "z", "pointsAtX",
        "pointsAtY", "pointsAtZ", "limitingConeAngle",
    ]

    /// What an animation element may change (its `attributeName`): what is drawn, never what is referenced or run.
    static let animatable: Set<String> = presentation.union(geometry).union(filterParameters)

    /// Attributes kept without a prefix (in no namespace), besides ``animatable``: identity, styling, conditions,
    /// animation timing, the document's own version, and the references ``SVGValues/allowsReference(_:in:)``
    /// checks.
    static let attributes: Set<String> = animatable.union([
        "id", "class", "style", "lang", "href", "requiredExtensions", "requiredFeatures", "systemLanguage",
        "version", "baseProfile", "zoomAndPan", "media", "path",
        "attributeName", "attributeType", "begin", "dur", "end", "min", "max", "restart", "repeatCount",
        "repeatDur", "calcMode", "keyTimes", "keySplines", "keyPoints", "from", "to", "by", "additive",
        "accumulate", "origin",
    ])

    /// Attributes kept in the XLink namespace, by local name.
    static let xlinkAttributes: Set<String> = ["href", "title"]

    /// Attributes kept with the `xml` prefix, by local name (`xml:base` is not: it would move every reference).
    static let xmlAttributes: Set<String> = ["space", "lang"]
}
