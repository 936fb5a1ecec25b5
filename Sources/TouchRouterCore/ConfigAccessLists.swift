import TouchRouterModel

/// The config walk's access lists (`access`, `owner`): users and groups by name or number.
extension ConfigParser {

    /// `{users: ["kiosk", 1000], groups: ["touch"]}`: names or numeric ids, at least one entry.
    mutating func accessList(_ node: JSONNode, _ subject: Subject, key: String = "access") -> AccessList? {
        guard let object = object(node, subject, "\"\(key)\"") else { return nil }
        let problemsBefore = problemCount
        checkKeys(object, allowed: Self.accessKeys, subject)
        let listKey = key
        var list = AccessList()
        var valid = problemCount == problemsBefore
        for key in Self.accessKeys {
            guard let entries = object[key] else { continue }
            guard case .array(let elements) = entries.value else {
                wrongType(entries, subject, "\"\(listKey).\(key)\"", "an array of names or ids")
                valid = false
                continue
            }
            for (index, element) in elements.enumerated() {
                switch element.value {
                case .string(let name) where Self.isValidPrincipalName(name):
                    let principal = AccessList.Principal.name(name)
                    if key == "users" { list.users.append(principal) } else { list.groups.append(principal) }
                case .string(let name):
                    report(
                        .invalidValue, element.position, subject,
                        "\"\(Excerpt.of(name))\" is not a user or group name (letters, digits, '_', '.', '-'; not"
                            + " first a digit or '-'; at most 32)")
                    valid = false
                case .number(let number, _)
                where number == number.rounded() && number >= 0 && number < 4_294_967_295:
                    let principal = AccessList.Principal.id(UInt32(number))
                    if key == "users" { list.users.append(principal) } else { list.groups.append(principal) }
                case .number(let number, _):
                    report(
                        .invalidValue, element.position, subject,
                        "a numeric \(key == "users" ? "uid" : "gid") must be an integer in 0…4294967294, found"
                            + " \(Self.format(number))")
                    valid = false
                default:
                    wrongType(element, subject, "\"\(listKey).\(key)[\(index)]\"", "a name or a numeric id")
                    valid = false
                }
            }
        }
        if valid && list.users.isEmpty && list.groups.isEmpty {
            report(
                .invalidValue, node.position, subject,
                "an \(listKey) list must name at least one user or group (an empty one would admit only root)")
            return nil
        }
        return valid ? list : nil
    }

    /// A user or group name as `useradd` accepts them, conservatively.
    static func isValidPrincipalName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.utf8.count <= 32 else { return false }
        guard first == "_" || ("a"..."z").contains(first) || ("A"..."Z").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || "_.-".unicodeScalars.contains($0)
        }
    }
}
