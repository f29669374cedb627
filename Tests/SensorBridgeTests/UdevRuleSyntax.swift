/// A syntax check of udev rules for systems whose `udevadm` has no `verify` (it came with systemd
/// 254; Debian 12 has 252): every line a comma-separated list of `KEY`, `KEY{attribute}` with an
/// operator and a double-quoted value, the keys and the operators each key takes as in udev(7).
enum UdevRuleSyntax {
    /// Keys that only match (`==`, `!=`), and whether they take `{attribute}`: true must, nil may.
    static let matchKeys: [String: Bool?] = [
        "ACTION": false, "DEVPATH": false, "KERNEL": false, "KERNELS": false, "SUBSYSTEM": false, "SUBSYSTEMS": false,
        "DRIVER": false, "DRIVERS": false, "ATTRS": true, "TAGS": false, "TEST": nil, "PROGRAM": false, "RESULT": false,
        "CONST": true,
    ]
    /// Keys that may also be assigned (`=`, `+=`, `-=`, `:=`), and whether they take `{attribute}`.
    static let assignKeys: [String: Bool?] = [
        "ATTR": true, "SYSCTL": true, "ENV": true, "TAG": false, "NAME": false, "SYMLINK": false, "OWNER": false,
        "GROUP": false, "MODE": false, "SECLABEL": true, "RUN": nil, "LABEL": false, "GOTO": false, "IMPORT": true,
        "OPTIONS": false,
    ]

    /// What is wrong with `text`, one message per problem, with its line number.
    static func problems(in text: String) -> [String] {
        var problems: [String] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            problems += self.problems(inRule: Substring(trimmed)).map { "line \(index + 1): \($0)" }
        }
        return problems
    }

    private static func problems(inRule rule: Substring) -> [String] {
        var rest = rule
        var problems: [String] = []
        var first = true
        while !rest.isEmpty {
            if !first {
                guard rest.first == "," else { return problems + ["expected ',' before '\(rest.prefix(20))'"] }
                rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
            }
            first = false
            let key = rest.prefix { $0.isUppercase || $0 == "_" }
            rest = rest.dropFirst(key.count)
            var attribute: Substring?
            if rest.first == "{" {
                guard let close = rest.firstIndex(of: "}") else { return problems + ["\(key){ is not closed"] }
                attribute = rest[rest.index(after: rest.startIndex)..<close]
                rest = rest[rest.index(after: close)...]
            }
            let op = ["==", "!=", "+=", "-=", ":=", "="].first { rest.hasPrefix($0) }
            guard let op else { return problems + ["no operator after \(key)"] }
            rest = rest.dropFirst(op.count)
            guard rest.first == "\"", let end = rest.dropFirst().firstIndex(of: "\"") else {
                return problems + ["the value of \(key) is not in double quotes"]
            }
            rest = rest[rest.index(after: end)...]
            let isMatch = op == "==" || op == "!="
            guard let takesAttribute = matchKeys[String(key)] ?? assignKeys[String(key)] else {
                problems.append("unknown key '\(key)'")
                continue
            }
            if !isMatch && assignKeys[String(key)] == nil {
                problems.append("\(key) can only be matched (== or !=), not given \(op)")
            }
            if takesAttribute == true && attribute?.isEmpty != false { problems.append("\(key) needs {attribute}") }
            if takesAttribute == false && attribute != nil { problems.append("\(key) takes no {attribute}") }
        }
        return problems
    }
}
