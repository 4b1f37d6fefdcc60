/// Rows read from somewhere other than a client (the shop's store, which a back office or
/// another counter writes) are held to the limits a client's input is: each is given again
/// as input, and must come back the same. One set of limits, so a row a counter keeps is
/// one it could have been given.
extension Product {
    /// Why this product could not have been given as input here; nil when it could.
    public var inputProblem: String? {
        problemGivenAgain(of: self) { () throws(ScanBridgeError) in
            try Product(input: JSONFields(wire), settings: CatalogSettings(currency: price.currency))
        }
    }
}

extension RepairOrder {
    /// Why this order, with its devices, could not have been given as input here; nil when it could.
    public var inputProblem: String? {
        problemGivenAgain(of: self) { () throws(ScanBridgeError) in
            var again = try RepairOrder(input: JSONFields(wire), now: createdAt)
            // The wire's time is to the millisecond; the row's may be finer.
            again.createdAt = createdAt
            return again
        }
    }
}

extension Customer {
    /// Why this customer could not have been given as input here; nil when it could.
    /// Milestones and the creation time are the store's own, not input.
    public var inputProblem: String? {
        problemGivenAgain(of: self) { () throws(ScanBridgeError) in
            var again = try Customer(input: JSONFields(wire), now: createdAt)
            again.milestones = milestones
            return again
        }
    }
}

extension Card {
    /// Why this card's name and wallet could not have been given as input here; nil when they could.
    public var inputProblem: String? {
        problemGivenAgain(of: self) { () throws(ScanBridgeError) in
            let input = try JSONFields(wire)
            var again = self
            again.walletAddress = try input.walletAddress("walletAddress")
            again.cardName = try input.text("cardName")
            return again
        }
    }
}

/// Why `value` is not what `given` makes of it again: its error, or that it came back otherwise.
private func problemGivenAgain<Value: Equatable>(of value: Value, given: () throws(ScanBridgeError) -> Value) -> String? {
    do {
        return try given() == value ? nil : "it is not as a client would have given it (untrimmed or unnormalised)"
    } catch {
        return error.message
    }
}
