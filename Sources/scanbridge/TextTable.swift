import Foundation

/// Columns padded to their widest cell, two spaces apart; no line ends in spaces.
enum TextTable {
    /// `rows` (the first one usually a header) as aligned lines.
    static func render(_ rows: [[String]]) -> String {
        var widths: [Int] = []
        for row in rows {
            for (column, cell) in row.enumerated() {
                if column == widths.count { widths.append(0) }
                widths[column] = max(widths[column], cell.count)
            }
        }
        return rows.map { row in
            let line = row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
            // Empty cells at the end leave no trailing spaces.
            return String(line.reversed().drop { $0 == " " }.reversed())
        }.joined(separator: "\n")
    }

    static func render(header: [String], rows: [[String]]) -> String {
        render([header] + rows)
    }
}
