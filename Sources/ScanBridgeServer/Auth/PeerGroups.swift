import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A peer's supplementary groups as the kernel recorded them when it connected
/// (`SO_PEERGROUPS`, Linux 4.13): the same moment as its `SO_PEERCRED`, so a process that
/// exits or changes its groups afterwards cannot lend the connection other groups, and no
/// file is read (the groups in `/proc/<pid>/status` belong to whatever process has that pid
/// now, and a daemon in another pid namespace has no such file at all).
///
/// NIO hands out a socket option only as a value of fixed size, zero-filled, and keeps the
/// length the kernel wrote; the list is read into a small buffer, and into one of the most
/// groups a process can have (`NGROUPS_MAX`) when the kernel answers `ERANGE` (too small).
/// Its length follows from the kernel keeping a process's groups sorted (it searches them by
/// bisection): after the first gid above 0, a 0 is padding. A 0 in front of them, or a list
/// of zeros only, is the root group when an empty buffer is too small for the list.
enum PeerGroups {
    /// NGROUPS_MAX in <linux/limits.h>.
    static let most = 65_536

    static func read(from provider: any SocketOptionProvider) -> EventLoopFuture<Set<UInt32>> {
        option(InlineArray<64, UInt32>.self, from: provider)
            .flatMapError { error in
                guard (error as? IOError)?.errnoCode == ERANGE else {
                    return provider.eventLoop.makeFailedFuture(error)
                }
                return option(InlineArray<65_536, UInt32>.self, from: provider)
            }
            .flatMap { gids in
                let listed = gids.filter { $0 != 0 }
                if gids.first != 0 { return provider.eventLoop.makeSucceededFuture(Set(listed)) }
                if !listed.isEmpty { return provider.eventLoop.makeSucceededFuture(Set(listed + [0])) }
                return hasAny(from: provider).map { $0 ? [0] : [] }
            }
    }

    /// The gids the buffer holds, zeros and all.
    private static func option<Buffer: Sendable>(
        _: Buffer.Type, from provider: any SocketOptionProvider
    ) -> EventLoopFuture<[UInt32]> {
        provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERGROUPS))
            .map { (buffer: Buffer) in
                withUnsafeBytes(of: buffer) { Array($0.bindMemory(to: UInt32.self)) }
            }
    }

    /// Whether the peer has any supplementary group: an empty buffer is too small for one.
    private static func hasAny(from provider: any SocketOptionProvider) -> EventLoopFuture<Bool> {
        provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERGROUPS))
            .map { (_: Nothing) in false }
            .flatMapErrorThrowing { error in
                guard (error as? IOError)?.errnoCode == ERANGE else { throw error }
                return true
            }
    }

    /// A buffer of no bytes.
    private struct Nothing: Sendable {}
}
