import ScanBridgeCore

/// A request's named parameters: the same typed, field-naming access the domain uses
/// for nested objects (a product inside `products.upsert`).
public typealias Params = JSONFields
