// libpcsclite for Swift: the headers as they are, plus what Swift cannot import from
// them (cast macros such as SCARD_PCI_T1 and SCARD_CTL_CODE).
//
// The headers live in /usr/include/PCSC and include each other as <pcsclite.h>; instead of
// pkg-config's -I (which comes with a -pthread SwiftPM refuses, warning on every build),
// the two forwarding headers next to this one point those includes at PCSC/.
#include <PCSC/winscard.h>
#include <PCSC/reader.h>

static inline const SCARD_IO_REQUEST *cpcsc_pci_for(DWORD protocol) {
    return protocol == SCARD_PROTOCOL_T0 ? SCARD_PCI_T0 : (protocol == SCARD_PROTOCOL_RAW ? SCARD_PCI_RAW : SCARD_PCI_T1);
}

static inline DWORD cpcsc_ctl_code(DWORD code) {
    return SCARD_CTL_CODE(code);
}
