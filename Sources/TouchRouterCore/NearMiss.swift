import TouchRouterModel

/// "Did you mean" suggestions: the closest known word within a small edit distance.
public enum NearMiss {
    /// The candidate closest to `word` (case-insensitive edit distance), if it is close enough to be a
    /// likely typo: at most 2 edits, and fewer than half the word's length.
    public static func suggestion(for word: String, among candidates: [String]) -> String? {
        // Far longer than any candidate: no near miss (and a huge key costs nothing).
        guard word.utf8.count <= 256 else { return nil }
        let lowered = Array(word.lowercased().unicodeScalars)
        var best: (distance: Int, candidate: String)?
        for candidate in candidates {
            // The distance is at least the difference in length: skip the work (a key may be huge).
            guard abs(candidate.unicodeScalars.count - lowered.count) <= 2 else { continue }
            let distance = editDistance(lowered, Array(candidate.lowercased().unicodeScalars))
            if distance <= 2, distance * 2 < max(lowered.count, 2), distance < (best?.distance ?? .max) {
                best = (distance, candidate)
            }
        }
        return best?.candidate
    }

    /// Edit distance counting an insertion, a deletion, a substitution or a swap of two neighbours as
    /// one edit (optimal string alignment), since swapped letters are the commonest typo.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
