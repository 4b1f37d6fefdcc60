package import ScanBridgeModel

/// A request's named parameters: the same typed, field-naming access the domain uses
/// for nested objects (a product inside `products.upsert`).
package typealias Params = JSONFields
