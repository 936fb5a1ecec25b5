/// The engine's API speaks the model's types (a `Layout` is a tree of `View`s, the tracker hands on
/// `ViewTouches`), so importing TouchRouterCore gives them too; the protocol and the client import
/// TouchRouterModel alone.
@_exported import TouchRouterModel
