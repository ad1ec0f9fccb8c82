import ArgumentParser
import WebImage

/// One transform flag from the command line, in the order the user gave it.
enum TransformStep: Equatable {
    typealias Fit = ImageTransformers.Resize.Fit

    case resize(PixelSize, fit: Fit)
    case crop(PixelRect)
    case round(radius: Double, borderWidth: Double, borderColor: RGBA)
    case flip(horizontal: Bool, vertical: Bool)
    case rotate(degrees: Double, fitSize: Bool)
    case tint(RGBA)
    case blur(radius: Double)
}

/// The transform flags shared by `convert` and `fetch`. ArgumentParser validates and documents them; the order
/// they apply in comes from ``TransformFlags/steps(in:)``, because an options struct keeps no order across flags.
struct TransformFlags: ParsableArguments {
    @Option(help: ArgumentHelp("Resize to WIDTHxHEIGHT pixels.", valueName: "WxH"))
    var resize: [String] = []
    @Option(help: ArgumentHelp("How --resize fits: fill (stretch), aspectFit or aspectFill (default fill).",
                               valueName: "mode"))
    var fit: [String] = []
    @Option(help: ArgumentHelp("Crop to a rectangle (clamped to the image).", valueName: "X,Y,W,H"))
    var crop: [String] = []
    @Option(help: ArgumentHelp("Round the corners, optionally with a border.",
                               valueName: "RADIUS[,BORDER_WIDTH,#RRGGBBAA]"))
    var round: [String] = []
    @Option(help: ArgumentHelp("Mirror: h, v or hv.", valueName: "h|v|hv"))
    var flip: [String] = []
    @Option(help: ArgumentHelp("Rotate counter-clockwise by DEGREES (write --rotate=-90 for clockwise).", valueName: "DEGREES"))
    var rotate: [String] = []
    @Flag(help: "Grow the canvas so a --rotate keeps the whole image.")
    var rotateFit = false
    @Option(help: ArgumentHelp("Tint with a colour.", valueName: "#RRGGBBAA"))
    var tint: [String] = []
    @Option(help: ArgumentHelp("Gaussian blur with RADIUS pixels.", valueName: "RADIUS"))
    var blur: [String] = []

    /// Names of the flags that take a value, as typed on the command line.
    static let valueFlags: Set<String> = ["--resize", "--fit", "--crop", "--round", "--flip", "--rotate", "--tint", "--blur"]

    /// The transform steps in `arguments` (a raw command line), in the order given.
    static func steps(in arguments: [String]) throws -> [TransformStep] {
        var steps: [TransformStep] = []
        var pendingFit: TransformStep.Fit?, pendingRotateFit = false
        var lastResize: Int?, lastRotate: Int?
        var fitUsed = Set<Int>()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" { break }
            if argument == "--rotate-fit" {
                if let last = lastRotate, case .rotate(let degrees, _) = steps[last] {
                    steps[last] = .rotate(degrees: degrees, fitSize: true)
                } else {
                    pendingRotateFit = true
                }
                continue
            }
            var name = argument, value: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            guard valueFlags.contains(name) else { continue }
            if value == nil {
                guard index < arguments.count else { throw ValidationError("\(name) needs a value") }
                value = arguments[index]
                index += 1
            }
            let text = value ?? ""
            switch name {
            case "--fit":
                guard let fit = TransformStep.Fit(rawValue: text) else {
                    throw ValidationError("--fit takes fill, aspectFit or aspectFill, not '\(text)'")
                }
                if let last = lastResize, !fitUsed.contains(last), case .resize(let size, _) = steps[last] {
                    steps[last] = .resize(size, fit: fit)
                    fitUsed.insert(last)
                } else {
                    pendingFit = fit
                }
            case "--resize":
                steps.append(.resize(try parseSize(text), fit: pendingFit ?? .fill))
                lastResize = steps.count - 1
                if pendingFit != nil { fitUsed.insert(steps.count - 1) }
                pendingFit = nil
            case "--crop":
                let numbers = try parseNumbers(text, count: 4, flag: name)
                steps.append(.crop(PixelRect(x: Int(numbers[0]), y: Int(numbers[1]),
                                             width: Int(numbers[2]), height: Int(numbers[3]))))
            case "--round":
                let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                guard parts.count == 1 || parts.count == 3, let radius = Double(parts[0]) else {
                    throw ValidationError("--round takes RADIUS or RADIUS,BORDER_WIDTH,#RRGGBBAA, not '\(text)'")
                }
                let width = parts.count == 3 ? Double(parts[1]) : 0
                let color = parts.count == 3 ? try parseColor(parts[2]) : RGBA(0, 0, 0, 0)
                guard let width else { throw ValidationError("--round: bad border width in '\(text)'") }
                steps.append(.round(radius: radius, borderWidth: width, borderColor: color))
            case "--flip":
                guard ["h", "v", "hv", "vh"].contains(text) else {
                    throw ValidationError("--flip takes h, v or hv, not '\(text)'")
                }
                steps.append(.flip(horizontal: text.contains("h"), vertical: text.contains("v")))
            case "--rotate":
                guard let degrees = Double(text), degrees.isFinite else {
                    throw ValidationError("--rotate takes a number of degrees, not '\(text)'")
                }
                steps.append(.rotate(degrees: degrees, fitSize: pendingRotateFit))
                pendingRotateFit = false
                lastRotate = steps.count - 1
            case "--tint":
                steps.append(.tint(try parseColor(text)))
            case "--blur":
                guard let radius = Double(text), radius.isFinite, radius >= 0 else {
                    throw ValidationError("--blur takes a radius of zero or more, not '\(text)'")
                }
                steps.append(.blur(radius: radius))
            default:
                break
            }
        }
        return steps
    }

    static func parseSize(_ text: String) throws -> PixelSize {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0 else {
            throw ValidationError("--resize takes WIDTHxHEIGHT in whole pixels above zero, not '\(text)'")
        }
        return PixelSize(width: width, height: height)
    }

    static func parseNumbers(_ text: String, count: Int, flag: String) throws -> [Double] {
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false).compactMap { Double($0) }
        guard numbers.count == count, numbers.allSatisfy(\.isFinite) else {
            throw ValidationError("\(flag) takes \(count) comma-separated numbers, not '\(text)'")
        }
        return numbers
    }

    /// `#RRGGBB` or `#RRGGBBAA` (the `#` is optional).
    static func parseColor(_ text: String) throws -> RGBA {
        guard let color = RGBA(hex: text) else {
            throw ValidationError("colours are written #RRGGBBAA or #RRGGBB, not '\(text)'")
        }
        return color
    }
}
