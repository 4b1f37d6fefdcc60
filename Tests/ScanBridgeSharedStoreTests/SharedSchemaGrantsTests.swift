import Testing

@testable import ScanBridgeSharedStore

/// A counter's role is granted every table the migrations make, and nothing else.
struct SharedSchemaGrantsTests {
    @Test func everyTableTheMigrationsMakeIsGrantedOnce() throws {
        let made = SharedSchema.migrations.flatMap(\.statements).compactMap { statement in
            statement.firstMatch(of: /CREATE TABLE (\w+)/).map { String($0.1) }
        }
        let granted = SharedSchema.counterTables + SharedSchema.keptTables + SharedSchema.readOnlyTables
        #expect(Set(made + ["scanbridge_migrations"]) == Set(granted))
        #expect(Set(granted).count == granted.count)
    }
}
