import TouchRouterModel

/// One entry of `screens`: its name, size and root view, and its input keys (which devices drive
/// it, calibration, rotation) with their device matchers (docs/configuration.md, "Screen").
extension ConfigParser {
    mutating func screen(_ node: JSONNode, _ index: Int) -> (Screen, ScreenInputConfig)? {
        guard let object = object(node, .top, "a screen") else { return nil }
        var name = "#\(index)"
        if let nameNode = object["name"] {
            switch nameNode.value {
            case .string(let text) where Self.isValidID(text):
                name = text
            case .string(let text):
                report(
                    .invalidID, nameNode.position, Subject(screenName: Excerpt.of(text)),
                    "a screen name must be letters, digits, '-', '_' or '.'")
            default:
                wrongType(nameNode, Subject(screenName: name), "\"name\"", "a string")
            }
        } else {
            report(.missingKey, node.position, Subject(screenName: name), "missing \"name\"")
        }
        let subject = Subject(screenName: Excerpt.of(name))
        checkKeys(object, allowed: Self.screenKeys + Self.fieldScreenKeys, subject)
        let screenField = fieldSettings(object, subject)
        if let screenField { fieldByScreen[name] = screenField }

        var size: [Double] = []
        for key in ["width", "height"] {
            guard let lengthNode = object[key] else {
                report(.missingKey, node.position, subject, "missing \"\(key)\"")
                continue
            }
            guard let length = finiteNumber(lengthNode, subject, "\"\(key)\"") else { continue }
            if length <= 0 {
                report(
                    .nonPositiveSize, lengthNode.position, subject,
                    "\(key) must be > 0, found \(Self.format(length))")
            } else {
                _ = checkCoordinate(length, lengthNode, subject, key)
            }
            size.append(length)
        }
        let width = size.count == 2 ? size[0] : 1
        let height = size.count == 2 ? size[1] : 1

        var root = View(id: "#root", frame: Rect(x: 0, y: 0, width: width, height: height))
        if let rootNode = object["root"] {
            if let view = view(
                rootNode, parent: -1, placeholder: "#root", depth: 1,
                defaultFrame: Rect(x: 0, y: 0, width: width, height: height), above: .identity)
            {
                root = view
            }
        } else {
            report(.missingKey, node.position, subject, "missing \"root\" (the screen's root view)")
        }

        var input = ScreenInputConfig(screenName: name)
        if let devicesNode = object["devices"] {
            if case .array(let list) = devicesNode.value {
                for (index, matcherNode) in list.enumerated() {
                    var matcherSubject = subject
                    matcherSubject.matcher = index
                    if let matcher = matcher(matcherNode, screenField: screenField, matcherSubject) {
                        input.devices.append(matcher)
                    }
                }
            } else {
                wrongType(devicesNode, subject, "\"devices\"", "an array of device matchers")
            }
        }
        if let rotation = number(object, "rotation", subject) {
            if [0, 90, 180, 270].contains(rotation) {
                input.rotationDegrees = Int(rotation)
            } else {
                report(
                    .invalidRotation, object["rotation"]?.position, subject,
                    "rotation must be 0, 90, 180 or 270, found \(Self.format(rotation))")
            }
        }
        if let calibrationNode = object["calibration"] {
            var numbers: [Double] = []
            if case .array(let list) = calibrationNode.value {
                for element in list {
                    if case .number(let number, _) = element.value, number.isFinite { numbers.append(number) }
                }
                if numbers.count == 6 && list.count == 6 { input.calibration = numbers }
            }
            if let calibration = input.calibration {
                do throws(ScreenMappingError) {
                    try ScreenMapping.validate(calibration: calibration)
                } catch {
                    report(.invalidCalibration, calibrationNode.position, subject, "\(error)")
                    input.calibration = nil
                }
            } else {
                report(
                    .invalidCalibration, calibrationNode.position, subject,
                    "calibration must be 6 finite numbers [a, b, c, d, e, f], found "
                        + Self.summary(calibrationNode.value))
            }
        }
        input.physicalSize = object["physicalSize"].flatMap { physicalSize($0, subject) }
        return (Screen(name: name, width: width, height: height, root: root), input)
    }

    /// One entry of a screen's `devices`; `screenField` is the screen's field settings, which the
    /// matcher's own `filters` override key by key.
    mutating func matcher(_ node: JSONNode, screenField: FieldSettings?, _ subject: Subject) -> DeviceMatcher? {
        guard let object = object(node, subject, "a device matcher") else { return nil }
        checkKeys(object, allowed: Self.matcherKeys, subject)
        var matcher = DeviceMatcher()
        if let name = string(object, "name", subject) {
            if name.isEmpty {
                report(
                    .invalidValue, object["name"]?.position, subject, "a device name glob must not be empty")
            }
            matcher.nameGlob = name
        }
        if let nodePath = string(object, "node", subject) {
            if !nodePath.hasPrefix("/") {
                report(
                    .invalidValue, object["node"]?.position, subject,
                    "\"node\" must be an absolute path, found \"\(Excerpt.of(nodePath))\"")
            }
            matcher.node = nodePath
        }
        if let udevNode = object["udev"] {
            if case .object(let properties) = udevNode.value {
                for member in properties.members {
                    guard case .string(let glob) = member.node.value else {
                        wrongType(
                            member.node, subject, "udev property \"\(Excerpt.of(member.key))\"", "a string")
                        continue
                    }
                    if matcher.udevProperties[member.key] == nil { matcher.udevProperties[member.key] = glob }
                }
            } else {
                wrongType(udevNode, subject, "\"udev\"", "an object of property: value")
            }
        }
        // No key that selects devices (an unknown key is already reported: one error is enough).
        if !Self.matcherSelectingKeys.contains(where: { object[$0] != nil }),
            object.members.allSatisfy({ Self.matcherKeys.contains($0.key) })
        {
            report(
                .invalidValue, node.position, subject,
                "a device matcher needs at least one of \"name\", \"udev\", \"node\"")
        }
        matcher.fieldSettings = matcherFieldSettings(object, screen: screenField, subject)
        return matcher
    }
}
