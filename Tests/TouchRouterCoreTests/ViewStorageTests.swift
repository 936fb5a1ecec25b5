import Testing

@testable import TouchRouterCore

/// `View` keeps its uncommon properties in a shared box: the properties must behave exactly like
/// plain stored ones (defaults, setters, equality), and the value must stay small.
@Suite("View storage: small values, properties as before")
struct ViewStorageTests {
    static let frame = Rect(x: 10, y: 20, width: 100, height: 50)

    @Test("a plain view is 80 bytes or less (a 100k layout holds 100k of them)")
    func size() {
        #expect(MemoryLayout<View>.stride <= 80)
    }

    @Test("every property reads back what init and the setters gave it")
    func properties() {
        var view = View(
            id: "v", frame: Self.frame, hidden: true, alpha: 0.5, interactive: false,
            touchMargin: EdgeMargin(top: 1, left: 2, bottom: 3, right: 4), shape: .ellipse,
            transform: ViewTransform(rotationDegrees: 90), multipleTouch: true, exclusiveTouch: true)
        #expect(view.hidden && !view.interactive && view.multipleTouch && view.exclusiveTouch)
        #expect(view.alpha == 0.5)
        #expect(view.touchMargin == EdgeMargin(top: 1, left: 2, bottom: 3, right: 4))
        #expect(view.shape == .ellipse)
        #expect(view.transform == ViewTransform(rotationDegrees: 90))
        #expect(view.parentToLocal != nil)
        view.hidden = false
        view.interactive = true
        view.multipleTouch = false
        view.exclusiveTouch = false
        #expect(!view.hidden && view.interactive && !view.multipleTouch && !view.exclusiveTouch)
        view.touchMargin = .zero
        view.shape = .rect
        #expect(view.transform == ViewTransform(rotationDegrees: 90))
        view.transform = ViewTransform()
        #expect(view.parentToLocal == nil)
        #expect(view == View(id: "v", frame: Self.frame, alpha: 0.5))
    }

    @Test("setting the transform after init moves parentToLocal with it (local points follow)")
    func transformSetter() {
        var view = View(id: "v", frame: Self.frame)
        let point = Point(60, 45)
        #expect(view.convertFromParent(point) == Point(50, 25))
        view.transform = ViewTransform(rotationDegrees: 180)
        let turned = View(id: "v", frame: Self.frame, transform: ViewTransform(rotationDegrees: 180))
        #expect(view.convertFromParent(point) == turned.convertFromParent(point))
        #expect(view == turned)
        #expect(view.hashValue == turned.hashValue)
    }

    @Test("views differing in one uncommon property are not equal")
    func inequality() {
        let plain = View(id: "v", frame: Self.frame)
        #expect(
            plain != View(id: "v", frame: Self.frame, touchMargin: EdgeMargin(top: 1, left: 0, bottom: 0, right: 0)))
        #expect(plain != View(id: "v", frame: Self.frame, shape: .roundedRect(radius: 4)))
        #expect(plain != View(id: "v", frame: Self.frame, transform: ViewTransform(scaleX: 2)))
        #expect(plain != View(id: "v", frame: Self.frame, exclusiveTouch: true))
    }
}
