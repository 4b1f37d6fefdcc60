// glibc's heap knobs for the daemon (<malloc.h>, which Swift's Glibc module does not import).

/// Gives the free pages at the top of and inside the heaps back to the system.
void cheap_trim(void);
