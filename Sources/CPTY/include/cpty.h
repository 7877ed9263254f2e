#ifndef REEL_CPTY_H
#define REEL_CPTY_H
#include <sys/types.h>

/// Opens a pseudo-terminal controller; writes the device path into `name` (size `len`).
/// Returns the controller fd, or -1 with errno set.
int reel_pty_open(char *name, unsigned long len);

/// Spawns `argv[0]` (PATH lookup) as a new session leader whose stdin/stdout/stderr and
/// controlling terminal are the device at `tty_path`, with default signal dispositions.
/// Returns 0 and the pid, or an errno value.
int reel_pty_spawn(const char *tty_path, char *const argv[], char *const envp[], pid_t *pid);
#endif
