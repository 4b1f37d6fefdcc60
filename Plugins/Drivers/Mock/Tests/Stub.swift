import Testing
@Test func stub() {}
