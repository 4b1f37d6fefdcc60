extension ScanEvent {
    /// The event with a customer's personal data taken out of its resolution, for
    /// `customers.erase`: the `customer` with that wallet loses `name`, `email` and `phone`
    /// (null, as for a customer who never gave them), and the `card` linked to that wallet
    /// loses the `cardName` they chose (its `displayName` falls back to the UID's).
    /// Nil when there is nothing of theirs left to take out, so erasing twice rewrites nothing.
    public func erasingCustomer(walletAddress: String) -> ScanEvent? {
        var details = resolution.details
        if case .object(var customer)? = details["customer"], customer["walletAddress"]?.stringValue == walletAddress {
            for key in ["name", "email", "phone"] where customer[key] != nil { customer[key] = .null }
            details["customer"] = .object(customer)
        }
        if case .object(var card)? = details["card"], card["walletAddress"]?.stringValue == walletAddress,
            card["cardName"] != nil
        {
            card["cardName"] = .null
            if let uidDisplay = card["uidDisplay"]?.stringValue {
                card["displayName"] = .string(Card.displayName(cardName: nil, uidDisplay: uidDisplay))
            }
            details["card"] = .object(card)
        }
        guard details != resolution.details else { return nil }
        var event = self
        event.resolution.details = details
        return event
    }
}
