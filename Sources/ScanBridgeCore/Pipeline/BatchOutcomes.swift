import ScanBridgeModel

/// The outcome of each element of a batch whose elements are checked one by one, then
/// processed together: an element that fails its check keeps its error, and the others get
/// what `process` gave them (one outcome each, in order), each in its element's place.
/// Inlinable: specialised where it is called, not run as generic code once per element.
@inlinable
package func batchOutcomes<Element, Checked, Output>(
    _ elements: [Element], check: (Element) throws -> Checked,
    process: ([Checked]) async -> [Result<Output, any Error>]
) async -> [Result<Output, any Error>] {
    var outcomes = [Result<Output, any Error>?](repeating: nil, count: elements.count)
    var checked: [Checked] = []
    var positions: [Int] = []
    for (position, element) in elements.enumerated() {
        do {
            checked.append(try check(element))
            positions.append(position)
        } catch {
            outcomes[position] = .failure(error)
        }
    }
    for (position, outcome) in zip(positions, await process(checked)) { outcomes[position] = outcome }
    return outcomes.map { $0! }
}
