import TouchRouterModel

/// A screen's `physicalSize: [widthMM, heightMM]` (docs/configuration.md, "Screen").
extension ConfigParser {
    /// Reads `physicalSize`: an array of exactly two finite numbers, each > 0 (millimetres, in the
    /// layout's orientation), within `GeometryBounds.physicalSizeMillimetres`. Reports `wrongType`,
    /// `nonFinite`, `nonPositiveSize` or `outOfRange`; nil then.
    mutating func physicalSize(_ node: JSONNode, _ subject: Subject) -> PhysicalSize? {
        guard case .array(let list) = node.value, list.count == 2 else {
            let found: String
            if case .array(let list) = node.value {
                found = "\(list.count) values"
            } else {
                found = node.value.typeName
            }
            report(
                .wrongType, node.position, subject,
                "\"physicalSize\" must be [widthMM, heightMM], two numbers, found \(found)")
            return nil
        }
        var sides: [Double] = []
        for (element, name) in zip(list, ["width", "height"]) {
            guard let millimetres = finiteNumber(element, subject, "the physicalSize \(name)") else { continue }
            guard millimetres > 0 else {
                report(
                    .nonPositiveSize, element.position, subject,
                    "the physicalSize \(name) must be > 0 mm, found \(Self.format(millimetres))")
                continue
            }
            let bounds = GeometryBounds.physicalSizeMillimetres
            guard bounds.contains(millimetres) else {
                report(
                    .outOfRange, element.position, subject,
                    "the physicalSize \(name) must be \(Self.format(bounds.lowerBound))…"
                        + "\(Self.format(bounds.upperBound)) mm, found \(Self.format(millimetres))")
                continue
            }
            sides.append(millimetres)
        }
        guard sides.count == 2 else { return nil }
        return PhysicalSize(widthMM: sides[0], heightMM: sides[1])
    }
}
