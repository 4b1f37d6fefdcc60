/// What the digits of an EAN/UPC/ITF-14 name: a GTIN, or an in-store price or weight
/// barcode of the region. The one reading of such digits, shared by the product lookup and
/// the event pipeline, so a scan's event and its resolution never disagree.
public enum TradeItemCode: Sendable, Hashable {
    /// The GTIN-14.
    case gtin(String)
    /// An in-store price or weight barcode: the item's GTIN-14 (value digits zeroed) and the value.
    case variableMeasure(VariableMeasure, gtin: String)

    /// The GTIN-14 the code is looked up by.
    public var gtin: String {
        switch self {
        case .gtin(let gtin), .variableMeasure(_, let gtin): gtin
        }
    }

    /// Reads `digits` (ASCII digits only) of a code of `symbology` (nil when typed). Nil
    /// when they have no GTIN's shape: not 8 or 12 to 14 digits, and no UPC-E. Throws, saying
    /// why, when they have one but a check digit is wrong.
    ///
    /// A UPC-A is read as the EAN-13 with a leading 0, so number system 2 is prefix 02.
    public static func read(
        digits: Substring, symbology: String?, region: VariableMeasure.Region
    ) throws(CodeError) -> TradeItemCode? {
        let count = digits.utf8.count
        if symbology == "upc-e"
            || (count == 8 && symbology != "ean-8" && !GTIN.hasValidCheckDigit(digits)
                && (try? UPCE.expand(digits)) != nil)
        {
            return .gtin(try GTIN.normalize(UPCE.expand(digits)))
        }
        guard count == 8 || (12...14).contains(count) else { return nil }
        if count == 12 || count == 13 {
            let ean13 = count == 12 ? "0" + digits : String(digits)
            if let measure = try VariableMeasure.parse(ean13, region: region) {
                return .variableMeasure(measure, gtin: "0" + measure.itemCode)
            }
        }
        return .gtin(try GTIN.normalize(digits))
    }
}
