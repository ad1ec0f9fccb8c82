import Foundation

/// Where each `webimage serve` setting is read, in this order: its flag, then `WEBIMAGE_<NAME>`, then imgproxy's
/// variable for it (its current name, then the deprecated names imgproxy still reads), then the default.
/// The environment it reads is the process's over the `--env-file`'s.
///
/// imgproxy's variables are read as imgproxy reads them: an empty value is no value, booleans as Go's
/// `strconv.ParseBool` takes them, whole numbers as `strconv.Atoi` does, durations in whole seconds, resolutions
/// in megapixels, lists split at commas and trimmed. A value that cannot be read stops the start with one line
/// naming the variable. The source remembers which imgproxy variables it was asked about, so that the others set
/// in the environment can be reported as not supported.
final class ServeSettingSource {
    let environment: [String: String]
    /// The imgproxy variables a setting looked at (whether or not a flag or our own variable won).
    private(set) var consulted = Set<String>()
    /// Deprecated imgproxy names that gave a value, each with the name that replaces it.
    private(set) var deprecatedNamesUsed = [(used: String, current: String)]()

    init(environment: [String: String]) {
        self.environment = environment
    }

    /// A setting's text and where it came from, for messages.
    struct Found {
        let origin: String
        let text: String
        var isImgproxy: Bool { origin.hasPrefix("IMGPROXY_") }
    }

    /// `WEBIMAGE_<ours>`, else the first of `imgproxy` that is set to something other than blanks.
    func find(_ ours: String, imgproxy: [String] = []) -> Found? {
        consulted.formUnion(imgproxy)
        if !ours.isEmpty, let text = environment["WEBIMAGE_\(ours)"] {
            return Found(origin: "WEBIMAGE_\(ours)", text: text)
        }
        for (index, name) in imgproxy.enumerated() {
            guard let text = environment[name], !text.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            if index > 0 { deprecatedNamesUsed.append((name, imgproxy[0])) }
            return Found(origin: name, text: text)
        }
        return nil
    }

    /// Lines for stderr about settings that were read but do not do all that was asked.
    private(set) var notes = [String]()

    func warn(_ line: String) {
        notes.append(line)
    }

    /// Marks an imgproxy variable as read by a setting that looks at it directly.
    func consult(_ name: String) {
        consulted.insert(name)
    }

    /// An imgproxy variable read alone (one that no flag of ours stands for), as a Go boolean.
    func imgproxyBool(_ name: String) throws -> Bool? {
        guard let found = find("", imgproxy: [name]), found.isImgproxy else { return nil }
        return try Self.boolean(found)
    }

    /// The text of a flag, else of the variables.
    func text(_ given: String?, flag: String, _ ours: String, imgproxy: [String] = []) -> Found? {
        let found = find(ours, imgproxy: imgproxy)
        return given.map { Found(origin: flag, text: $0) } ?? found
    }

    /// An on/off setting: on when its flag is given, else what the variables say, else off. With
    /// `imgproxyMeansOpposite`, imgproxy's variable says the opposite of the flag (`IMGPROXY_STRIP_METADATA=false`
    /// is `--keep-metadata`).
    func switchOn(_ given: Bool, _ ours: String, imgproxy: [String] = [],
                  imgproxyMeansOpposite: Bool = false) throws -> Bool {
        let found = find(ours, imgproxy: imgproxy)
        if given { return true }
        guard let found else { return false }
        let value = try Self.boolean(found)
        return found.isImgproxy && imgproxyMeansOpposite ? !value : value
    }

    /// How imgproxy writes a number that a setting of ours takes as a whole number.
    enum ImgproxyNumber {
        /// A whole number (a count, bytes, or seconds).
        case whole
        /// Megapixels, with decimals (`16.8` is 16 800 000 pixels).
        case megapixels
    }

    /// A whole-number setting, at least `minimum`. imgproxy's `0`, where it means "no limit" or "off", becomes
    /// `imgproxyZero` before the check.
    func wholeNumber(_ given: Int?, flag: String, _ ours: String, imgproxy: [String] = [],
                     unit: ImgproxyNumber = .whole, imgproxyZero: Int? = nil, minimum: Int) throws -> Int? {
        let found = find(ours, imgproxy: imgproxy)
        let origin: String, value: Int
        if let given {
            (origin, value) = (flag, given)
        } else if let found {
            origin = found.origin
            if found.isImgproxy, unit == .megapixels {
                guard let megapixels = Double(found.text), megapixels.isFinite, megapixels >= 0,
                      megapixels < Double(Int.max) / 1_000_000 else {
                    throw ServeError("\(found.origin)=\(found.text): expected megapixels, as 16.8")
                }
                value = Int(megapixels * 1_000_000)
            } else {
                guard let parsed = Int(found.text) else {
                    throw ServeError("\(found.origin)=\(found.text): expected a whole number")
                }
                value = found.isImgproxy && parsed == 0 ? imgproxyZero ?? 0 : parsed
            }
        } else {
            return nil
        }
        guard value >= minimum else { throw ServeError("\(origin) must be at least \(minimum), not \(value)") }
        return value
    }

    /// A list setting: each flag (repeatable) and each variable take comma-separated items, trimmed. Empty
    /// items are dropped unless `keepsEmptyItems` (where positions matter, as for keys and salts).
    func list(_ given: [String], flag: String, _ ours: String, imgproxy: [String] = [],
              keepsEmptyItems: Bool = false) -> (origin: String, items: [String])? {
        let found = find(ours, imgproxy: imgproxy)
        let origin: String, texts: [String]
        if !given.isEmpty {
            (origin, texts) = (flag, given)
        } else if let found {
            (origin, texts) = (found.origin, [found.text])
        } else {
            return nil
        }
        let items = texts.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        return (origin, keepsEmptyItems ? items : items.filter { !$0.isEmpty })
    }

    /// Our variables take 1/true/yes/on and 0/false/no/off; imgproxy's, what Go's `strconv.ParseBool` takes.
    static func boolean(_ found: Found) throws -> Bool {
        if found.isImgproxy {
            guard let value = goBoolean(found.text) else {
                throw ServeError("\(found.origin)=\(found.text): expected true or false (1, t, T, TRUE, true, True, "
                                 + "0, f, F, FALSE, false, False)")
            }
            return value
        }
        switch found.text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off", "": return false
        default: throw ServeError("\(found.origin)=\(found.text): expected 1, true, yes, 0, false or no")
        }
    }

    /// The booleans Go's `strconv.ParseBool` reads, and nothing else (not `yes`, not `TrUe`).
    static func goBoolean(_ text: String) -> Bool? {
        switch text {
        case "1", "t", "T", "TRUE", "true", "True": true
        case "0", "f", "F", "FALSE", "false", "False": false
        default: nil
        }
    }
}
