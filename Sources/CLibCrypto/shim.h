// OpenSSL's libcrypto (Debian package libssl-dev): the SHA-256 of the gateway's token secrets,
// and AES-128 and AES-CMAC for the Secure Unique NFC messages of NTAG 424 DNA cards. The
// system's own library rather than a second copy of BoringSSL in every build of the daemon
// (docs/architecture.md, Design decisions).
//
// The AES functions are static inline so that the module stays a system library: Swift
// cannot call EVP's OSSL_PARAM macros or pass its arrays comfortably, and these are the
// only places that touch EVP. Each returns 1 on success and 0 on any failure.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/sha.h>

#define SCANBRIDGE_AES_BLOCK 16

// AES-128 in ECB or CBC mode without padding, over whole blocks: `encrypt` 1 encrypts,
// 0 decrypts; `iv` is ignored in ECB mode. `output` has room for `length` bytes.
static inline int scanbridge_aes128(
    int encrypt, int cbc, const unsigned char *key, const unsigned char *iv, const unsigned char *input,
    size_t length, unsigned char *output)
{
    if (length % SCANBRIDGE_AES_BLOCK != 0 || length > (size_t)0x7FFFFFF0) return 0;
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    if (context == NULL) return 0;
    int written = 0, last = 0;
    int ok = EVP_CipherInit_ex(context, cbc ? EVP_aes_128_cbc() : EVP_aes_128_ecb(), NULL, key, cbc ? iv : NULL, encrypt)
        && EVP_CIPHER_CTX_set_padding(context, 0)
        && EVP_CipherUpdate(context, output, &written, input, (int)length)
        && EVP_CipherFinal_ex(context, output + written, &last)
        && (size_t)(written + last) == length;
    EVP_CIPHER_CTX_free(context);
    return ok;
}

// AES-128 CMAC (NIST SP 800-38B) through OpenSSL 3's EVP_MAC "CMAC": 16 bytes into `mac`.
static inline int scanbridge_aes128_cmac(
    const unsigned char *key, const unsigned char *input, size_t length, unsigned char *mac)
{
    EVP_MAC *algorithm = EVP_MAC_fetch(NULL, "CMAC", NULL);
    if (algorithm == NULL) return 0;
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(algorithm);
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, (char *)"AES-128-CBC", 0);
    params[1] = OSSL_PARAM_construct_end();
    size_t written = 0;
    int ok = context != NULL
        && EVP_MAC_init(context, key, SCANBRIDGE_AES_BLOCK, params)
        && EVP_MAC_update(context, input, length)
        && EVP_MAC_final(context, mac, &written, SCANBRIDGE_AES_BLOCK)
        && written == SCANBRIDGE_AES_BLOCK;
    EVP_MAC_CTX_free(context);
    EVP_MAC_free(algorithm);
    return ok;
}
