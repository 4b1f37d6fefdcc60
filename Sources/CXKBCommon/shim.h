// libxkbcommon, as it is, for the keyboard-wedge driver: evdev keycodes → text in the
// layout the scanner emulates (Debian package libxkbcommon-dev; the layouts are xkb-data's).
#include <xkbcommon/xkbcommon.h>
