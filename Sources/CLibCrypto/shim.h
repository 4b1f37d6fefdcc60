// OpenSSL's libcrypto (Debian package libssl-dev): the SHA-256 of the gateway's token secrets.
// The system's own library rather than a second copy of BoringSSL in every build of the daemon
// (docs/architecture.md, Design decisions).
#include <openssl/sha.h>
