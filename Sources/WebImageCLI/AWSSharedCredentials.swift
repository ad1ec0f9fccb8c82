import Foundation

/// AWS's shared credentials file (`~/.aws/credentials`, or `AWS_SHARED_CREDENTIALS_FILE`): INI sections named
/// after profiles, each with `aws_access_key_id`, `aws_secret_access_key` and, for temporary keys,
/// `aws_session_token`.
enum AWSSharedCredentials {
    /// The key of `profile` in `text`; `nil` when the profile is missing or lacks the id or the secret.
    static func key(profile: String, in text: String) -> (id: String, secret: String, sessionToken: String?)? {
        var section: String?
        var values: [String: String] = [:]
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                section = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                continue
            }
            guard section == profile, let equals = line.firstIndex(of: "=") else { continue }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            values[name] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        guard let id = values["aws_access_key_id"], !id.isEmpty,
              let secret = values["aws_secret_access_key"], !secret.isEmpty else { return nil }
        let token = values["aws_session_token"].flatMap { $0.isEmpty ? nil : $0 }
        return (id, secret, token)
    }

    /// Where the file is for `environment`: `AWS_SHARED_CREDENTIALS_FILE`, else `$HOME/.aws/credentials`.
    static func path(environment: [String: String]) -> String? {
        if let path = environment["AWS_SHARED_CREDENTIALS_FILE"], !path.isEmpty { return path }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.aws/credentials"
    }
}
